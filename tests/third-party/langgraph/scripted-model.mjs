// A LangChain chat model with no provider behind it: what it answers is a pure
// function of the messages it is given (`script(messages)`), streamed as a
// provider streams: text in two deltas; each tool call as `tool_call_chunks`, its
// id and name first, then its arguments in three pieces.
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { concat } from '@langchain/core/utils/stream';

export class ScriptedChatModel extends BaseChatModel {
  /** `script(messages)` answers `{text}` or `{calls: [{name, args}]}`. */
  constructor(script) {
    super({});
    this.script = script;
  }

  _llmType() {
    return 'scripted';
  }

  /** As a provider's model does: the tools go with each call as OpenAI-style definitions. */
  bindTools(tools) {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t)) });
  }

  async _generate(messages, options, runManager) {
    let message;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      message = message ? concat(message, chunk.message) : chunk.message;
    }
    return { generations: [{ text: message.text, message }] };
  }

  async *_streamResponseChunks(messages, options, runManager) {
    const reply = this.script(messages);
    // Ids count what the prompt already holds: unique within a thread, the same on every run.
    const id = `ai-${messages.filter((m) => m.type === 'ai').length + 1}`;
    const before = messages.reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    const chunks = [];
    if (reply.text !== undefined) {
      const half = Math.ceil(reply.text.length / 2);
      chunks.push({ content: reply.text.slice(0, half) }, { content: reply.text.slice(half) });
    }
    // As OpenAI streams calls: a first chunk with the call's id and name, then its arguments in pieces.
    (reply.calls ?? []).forEach(({ name, args }, index) => {
      const json = JSON.stringify(args);
      const third = Math.ceil(json.length / 3);
      const start = { index, id: `call-${before + index + 1}`, name, args: '', type: 'tool_call_chunk' };
      chunks.push({ content: '', tool_call_chunks: [start] });
      for (let at = 0; at < json.length; at += third) {
        chunks.push({
          content: '',
          tool_call_chunks: [{ index, args: json.slice(at, at + third), type: 'tool_call_chunk' }],
        });
      }
    });
    for (const fields of chunks) {
      const chunk = new ChatGenerationChunk({ text: fields.content, message: new AIMessageChunk({ id, ...fields }) });
      await runManager?.handleLLMNewToken(fields.content, undefined, undefined, undefined, undefined, { chunk });
      yield chunk;
    }
  }
}
