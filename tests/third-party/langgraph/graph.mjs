// The LangGraph graph the dev server runs: a model node whose tools are the
// client's (from the AG-UI input: @ag-ui/langgraph puts them in the state's
// `tools`) and the server's own; a tools node that runs only the server's
// calls and ends the run while a client call waits for the client.
// `lookup_docs` answers on the server; `book_flight` asks the user with
// interrupt() inside the tool (human in the loop) and answers with the reply.
import { StateGraph, StateSchema, MessagesValue, START, END, interrupt } from '@langchain/langgraph';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { ScriptedChatModel } from './scripted-model.mjs';
import { script } from './script.mjs';

const model = new ScriptedChatModel(script);

/** What @ag-ui/langgraph sends for a cancelled interrupt (its DEFAULT_RESUME_SENTINEL_CANCELLED). */
const CANCELLED = '__agui_cancelled__';

const SERVER_TOOLS = [
  tool(async ({ topic }) => ({ topic, pages: [`${topic}.md`] }), {
    name: 'lookup_docs',
    description: 'Searches the documentation (runs on the server).',
    schema: z.object({ topic: z.string() }),
  }),
  tool(
    async ({ to }, config) => {
      const answer = interrupt({
        reason: 'confirmation',
        message: `Book the flight to ${to}?`,
        toolCallId: config.toolCall.id,
      });
      if (answer?.[CANCELLED]) return { to, booked: false, cancelled: true };
      return { to, booked: answer?.confirmed === true };
    },
    {
      name: 'book_flight',
      description: 'Books a flight once the user confirms (asks them on the server).',
      schema: z.object({ to: z.string() }),
    },
  ),
];
const serverTool = new Map(SERVER_TOOLS.map((t) => [t.name, t]));

const State = new StateSchema({
  messages: MessagesValue,
  /** The client's tools, as @ag-ui/langgraph passes them: [{type: 'function', function: {...}}]. */
  tools: z.array(z.any()).default(() => []),
});

async function agent(state) {
  const bound = model.bindTools([...state.tools, ...SERVER_TOOLS]);
  return { messages: [await bound.invoke(state.messages)] };
}

const lastCalls = (state) => state.messages.at(-1).tool_calls ?? [];

async function serverTools(state, config) {
  const messages = [];
  for (const call of lastCalls(state).filter((c) => serverTool.has(c.name))) {
    messages.push(await serverTool.get(call.name).invoke({ ...call, type: 'tool_call' }, config));
  }
  return { messages };
}

/** After the model: the server runs its own calls; a reply, or only client calls, ends the run. */
const afterAgent = (state) => (lastCalls(state).some((c) => serverTool.has(c.name)) ? 'server_tools' : END);

/** After the server's calls: back to the model, unless a client call still waits for the client. */
function afterTools(state) {
  const call = state.messages.findLast((m) => m.type === 'ai');
  return call.tool_calls.some((c) => !serverTool.has(c.name)) ? END : 'agent';
}

export const graph = new StateGraph(State)
  .addNode('agent', agent)
  .addNode('server_tools', serverTools)
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', afterAgent, ['server_tools', END])
  .addConditionalEdges('server_tools', afterTools, ['agent', END])
  .compile();
