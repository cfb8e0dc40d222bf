// The model's script: a pure function of the LangChain messages the graph gives
// the model (the same scenarios, prompts and tools as tests/node/copilotkit.test.mjs,
// plus the two server tools of graph.mjs). The last user message names the
// scenario; what came after it (tool calls and their results) says how far the
// turn has gone. Returns {text} or {calls: [{name, args}]}.

/** The text of a message (content may be a list of parts). */
const textOf = (m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join(''));

export function script(messages) {
  const lastUser = messages.findLastIndex((m) => m.type === 'human');
  const ask = textOf(messages[lastUser]);
  const results = messages.slice(lastUser + 1).filter((m) => m.type === 'tool');
  const reply = (calls) => (results.length ? { text: `results: ${results.map(textOf).join(' | ')}` } : { calls });
  if (ask.includes('weather in Paris')) return reply([{ name: 'get_weather', args: { city: 'Paris' } }]);
  if (ask.includes('two cities')) {
    return reply([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Tokyo' } },
    ]);
  }
  if (ask.includes('clipboard')) return reply([{ name: 'read_clipboard', args: {} }]);
  if (ask.includes('Atlantis')) return reply([{ name: 'get_weather', args: { city: 'Atlantis' } }]);
  if (ask.includes('docs and weather')) {
    return reply([
      { name: 'lookup_docs', args: { topic: 'tools' } },
      { name: 'get_weather', args: { city: 'Paris' } },
    ]);
  }
  if (ask.includes('Look up the docs')) return reply([{ name: 'lookup_docs', args: { topic: 'tools' } }]);
  if (ask.includes('Book a flight')) return reply([{ name: 'book_flight', args: { to: 'Lisbon' } }]);
  // The endless caller: a new tick every round (new arguments, so the runaway guard stays out of it).
  if (ask.includes('tick forever')) return { calls: [{ name: 'tick', args: { n: results.length + 1 } }] };
  return { text: `echo: ${ask}` };
}
