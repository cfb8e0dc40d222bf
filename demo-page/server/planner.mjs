// The default brain: a deterministic, keyword-driven agent that exercises every AG-UI path the
// client runtime has to handle, with no model, no API key and no network.
//
// Stateless like a real agent: every decision comes from the RunAgentInput alone. The driving
// text is the last user message; progress within a turn is read from the tool messages after it.
import { EventType } from '@ag-ui/core';
import { runServerTool, streamReasoning, streamText, streamToolCall } from './stream.mjs';
import { pickDataQuestion, userQuery } from './planner-data.mjs';

export const HELP = `I am the demo agent: no model behind me, just keywords. Try:
• "how many permits by type", "permits per month", "show permits on a map", "largest projects" (add a type such as "demolition" to filter the last three): I read the schema, run SQL on the permits database, draw a chart or map and sum it up.
• "sql: SELECT ..." runs your own read-only query (anything else is refused).
• "where am i": I call your get_current_location tool.
• "copy <text> to clipboard": I call copy_to_clipboard with that text.
• "delete <something>" or "approve": I ask request_user_approval first.
• "several" or "multi": location, then approval, then an answer: three rounds.
• "loop": I call get_current_location every round and never stop; your client's round cap has to.
• "interrupt": the run ends with an interrupt asking to confirm a bulk export; resume it to continue.
• "state": a STATE_SNAPSHOT, then a STATE_DELTA.
• "error": the run fails with RUN_ERROR.
• "help": this text.
Turn a client tool off in the tools panel and I will say it is disabled instead of calling it.`;

const DOWNTOWN = [30.2672, -97.7431];
const CLIENT_TOOLS = ['get_current_location', 'copy_to_clipboard', 'request_user_approval'];

// --- reading the conversation ------------------------------------------------------------------

const textOf = (content) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((p) => p?.type === 'text')
          .map((p) => p.text)
          .join(' ')
      : '';

function parseContent(content) {
  const text = textOf(content);
  try {
    return JSON.parse(text);
  } catch {
    return text; // a handler may return a plain string
  }
}

// What the planner needs from the input: the last user message, and the tool results that came
// after it, each with the name of the tool it answers (looked up in the assistant toolCalls).
export function readTurn(input) {
  const messages = Array.isArray(input.messages) ? input.messages : [];
  let last = -1;
  messages.forEach((m, i) => {
    if (m?.role === 'user') last = i;
  });
  const names = new Map();
  for (const m of messages) {
    if (m?.role === 'assistant') for (const call of m.toolCalls ?? []) names.set(call.id, call.function?.name);
  }
  const results = messages
    .slice(last + 1)
    .filter((m) => m?.role === 'tool')
    .map((m) => {
      const content = parseContent(m.content);
      const error =
        m.error ??
        (content && typeof content === 'object' && content.error
          ? String(content.error.message ?? content.error)
          : undefined);
      // Fallback for a client that drops assistant messages: our ids start with the tool name.
      const name = names.get(m.toolCallId) ?? CLIENT_TOOLS.find((n) => String(m.toolCallId).startsWith(`${n}-`));
      return { toolCallId: m.toolCallId, name, content, error };
    });
  const previousAssistant = messages
    .slice(0, Math.max(last, 0))
    .filter((m) => m?.role === 'assistant' && textOf(m.content).trim())
    .at(-1);
  const userMessage = last >= 0 ? messages[last] : undefined;
  const raw = textOf(userMessage?.content).trim();
  return {
    userMessage,
    raw,
    text: raw.toLowerCase(),
    results,
    previousAssistantText: previousAssistant ? textOf(previousAssistant.content) : '',
    advertised: new Map((input.tools ?? []).map((t) => [t?.name, t])),
  };
}

const resultsFor = (turn, name) => turn.results.filter((r) => r.name === name);
const sentence = (error) => String(error).replace(/[.\s]+$/, ''); // the error text, without its full stop

// --- client tools --------------------------------------------------------------------------------

// Calls a client tool and ends the run waiting for it, or, if the client did not advertise the
// tool (toggled off), says so in text: the model can only call what the client offers.
async function callClientTool(ctx, turn, name, args, leadText) {
  if (!turn.advertised.has(name)) {
    await streamText(
      ctx,
      `${leadText ? `${leadText} ` : ''}But the ${name} tool is disabled in your tools panel, so I can't call it. Turn it on and ask again.`,
    );
    return { type: 'success' };
  }
  const messageId = ctx.newId('msg');
  if (leadText) await streamText(ctx, leadText, { messageId });
  const toolCallId = ctx.newId(name);
  await streamToolCall(ctx, { toolCallId, toolCallName: name, args, parentMessageId: messageId });
  return { type: 'success', pendingToolCallIds: [toolCallId] };
}

function describeLocation(result) {
  if (!result) return "I don't know where you are (the tool is disabled).";
  if (result.error) return `I couldn't get your location: ${sentence(result.error)}.`;
  const c = result.content && typeof result.content === 'object' ? (result.content.coords ?? result.content) : {};
  const lat = Number(c.latitude ?? c.lat);
  const lon = Number(c.longitude ?? c.lon ?? c.lng);
  if (!Number.isFinite(lat) || !Number.isFinite(lon))
    return `Your location tool answered ${JSON.stringify(result.content)}, which has no coordinates I can read.`;
  const accuracy = Number(c.accuracy);
  const km = distanceKm([lat, lon], DOWNTOWN);
  return `You are at ${lat.toFixed(5)}, ${lon.toFixed(5)}${Number.isFinite(accuracy) ? ` (±${Math.round(accuracy)} m)` : ''}, about ${km < 10 ? km.toFixed(1) : Math.round(km).toLocaleString('en-US')} km from downtown Austin, where the demo permits are.`;
}

function distanceKm([lat1, lon1], [lat2, lon2]) {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(a));
}

function describeDecision(result, action) {
  if (!result) return "I couldn't ask for approval (the tool is disabled).";
  if (result.error) return `The approval request failed: ${sentence(result.error)}. I did nothing.`;
  const c = result.content ?? {};
  const decision = c.decision ?? (c.approved === true ? 'approved' : c.approved === false ? 'rejected' : undefined);
  if (decision === 'approved')
    return `You approved "${action}". A real agent would go ahead now; this demo's database is read-only, so nothing was changed.`;
  if (decision === 'rejected') return `You rejected "${action}", so I did nothing.`;
  return `The approval tool answered ${JSON.stringify(c)}, which is neither approved nor rejected, so I did nothing.`;
}

const whereAmI = async (ctx, turn) => {
  const [result] = resultsFor(turn, 'get_current_location');
  if (result) return streamText(ctx, describeLocation(result)).then(() => ({ type: 'success' }));
  return callClientTool(ctx, turn, 'get_current_location', {}, 'Let me ask your browser where you are.');
};

function clipboardText(turn) {
  const m = /copy\s+(.+?)\s+(?:in)?to\s+(?:the\s+|my\s+|your\s+)?clipboard/i.exec(turn.raw);
  const quoted = m?.[1].trim().replace(/^["'“‘](.*)["'”’]$/s, '$1');
  return quoted || turn.previousAssistantText || 'Hello from the agui-client-tools demo agent';
}

const copyToClipboard = async (ctx, turn) => {
  const text = clipboardText(turn);
  const [result] = resultsFor(turn, 'copy_to_clipboard');
  if (!result) return callClientTool(ctx, turn, 'copy_to_clipboard', { text }, 'Copying that for you.');
  await streamText(
    ctx,
    result.error
      ? `I couldn't copy to your clipboard: ${sentence(result.error)}.`
      : `Copied "${text}" to your clipboard.`,
  );
  return { type: 'success' };
};

function approvalAction(turn) {
  const m = /\bdelete\b\s*(.*)$/is.exec(turn.raw);
  if (m) return `Delete ${m[1].trim() || 'the selected permits'}`;
  return turn.raw.replace(/^./, (c) => c.toUpperCase());
}

const requestApproval = async (ctx, turn) => {
  const action = approvalAction(turn);
  const [result] = resultsFor(turn, 'request_user_approval');
  if (result) return streamText(ctx, describeDecision(result, action)).then(() => ({ type: 'success' }));
  const details = 'Demo only: the permits database is opened read-only, so nothing will really change.';
  return callClientTool(ctx, turn, 'request_user_approval', { action, details }, 'This needs your approval first.');
};

// Three rounds: location, then approval to use it, then the answer. A disabled tool is skipped
// with a note, so the rest of the chain still runs.
const severalRounds = async (ctx, turn) => {
  const [location] = resultsFor(turn, 'get_current_location');
  const [approval] = resultsFor(turn, 'request_user_approval');
  const action = 'Use your location to find permits near you';
  const locationOn = turn.advertised.has('get_current_location');
  const approvalOn = turn.advertised.has('request_user_approval');
  if (!location && locationOn) {
    await streamReasoning(
      ctx,
      'This needs two client tools in sequence: first the location, then an approval to use it, then I can answer.',
    );
    return callClientTool(ctx, turn, 'get_current_location', {}, 'Step 1 of 3: your location.');
  }
  const located = locationOn
    ? describeLocation(location)
    : 'get_current_location is disabled, so I skipped your location.';
  if (!approval && approvalOn) {
    return callClientTool(
      ctx,
      turn,
      'request_user_approval',
      { action, details: located },
      `${located} Step 2 of 3: your approval.`,
    );
  }
  const decided = approvalOn
    ? describeDecision(approval, action)
    : 'request_user_approval is disabled, so I skipped the approval.';
  await streamText(ctx, `Step 3 of 3. ${located} ${decided}`);
  return { type: 'success' };
};

// Whether the advertised schema lets a call carry `key`: a model follows the schema it was given.
function schemaAllows(tool, key) {
  const params = tool?.parameters;
  if (!params || typeof params !== 'object') return true;
  return Object.hasOwn(params.properties ?? {}, key) || params.additionalProperties !== false;
}

// Calls get_current_location every round, forever, with arguments that differ per round ({round}
// when the advertised schema allows it, else {} as a closed schema demands): only the client's
// MAX_FRONTEND_TOOL_ROUNDS cap can end this turn.
const loopForever = async (ctx, turn) => {
  const round = resultsFor(turn, 'get_current_location').length + 1;
  const args = schemaAllows(turn.advertised.get('get_current_location'), 'round') ? { round } : {};
  return callClientTool(
    ctx,
    turn,
    'get_current_location',
    args,
    `Round ${round}: asking for your location again. I never stop on my own.`,
  );
};

// --- interrupts, state, errors ---------------------------------------------------------------

const EXPORT_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean' }, note: { type: 'string' } },
  required: ['confirm'],
};

const askToExport = async (ctx, turn) => {
  await streamText(ctx, 'A bulk export of every permit needs your confirmation first.');
  const id = `export-${turn.userMessage?.id ?? ctx.input.runId}`;
  return {
    type: 'interrupt',
    interrupts: [
      { id, reason: 'confirmation', message: 'Proceed with the bulk export?', responseSchema: EXPORT_SCHEMA },
    ],
  };
};

// A resumed run: answer the first resume entry, whatever interrupt it names.
const answerResume = async (ctx, turn) => {
  const [entry] = ctx.input.resume;
  const payload = entry.payload && typeof entry.payload === 'object' ? entry.payload : {};
  const note = typeof payload.note === 'string' && payload.note ? ` Your note: "${payload.note}".` : '';
  if (entry.status === 'cancelled') {
    await streamText(ctx, `Export cancelled (interrupt ${entry.interruptId}). Nothing was exported.`);
  } else if (payload.confirm === true) {
    const messageId = await streamText(ctx, 'Confirmed. Counting what to export.');
    const counted = await runServerTool(
      ctx,
      'execute_query',
      { query: 'SELECT COUNT(*) AS permits FROM permits' },
      messageId,
    );
    const n = counted.rows?.[0]?.permits;
    await streamText(ctx, `Exported ${n} permits (a demo: no file was written).${note}`);
  } else {
    await streamText(ctx, `You answered without confirming, so I did not export anything.${note}`);
  }
  return { type: 'success' };
};

const stateDemo = async (ctx, turn) => {
  const previous =
    ctx.input.state && typeof ctx.input.state === 'object' && !Array.isArray(ctx.input.state) ? ctx.input.state : {};
  const counter = Number.isInteger(previous.counter) ? previous.counter : 0;
  ctx.emit({ type: EventType.STATE_SNAPSHOT, snapshot: { ...previous, counter, lastCommand: turn.raw } });
  ctx.emit({
    type: EventType.STATE_DELTA,
    delta: [
      { op: 'replace', path: '/counter', value: counter + 1 },
      { op: 'add', path: '/lastRunId', value: ctx.input.runId },
    ],
  });
  await streamText(
    ctx,
    `State: counter was ${counter}; a STATE_SNAPSHOT set it, then a STATE_DELTA (JSON Patch) made it ${counter + 1}.`,
  );
  return { type: 'success' };
};

const failOnPurpose = async (ctx) => {
  await streamText(ctx, 'Failing this run on purpose, as you asked.');
  return {
    error: { message: 'Demo failure: you typed "error", so this run ends with RUN_ERROR.', code: 'DEMO_ERROR' },
  };
};

// --- data questions --------------------------------------------------------------------------

// Schema, SQL, a visual, then a summary computed from the rows the query actually returned.
async function answerData(ctx, turn, question) {
  await streamReasoning(ctx, question.reasoning);
  const messageId = await streamText(ctx, 'Let me look at the permits database.');
  await runServerTool(ctx, 'get_database_schema', {}, messageId);
  const data = await runServerTool(ctx, 'execute_query', { query: question.sql }, messageId);
  if (data.error) {
    await streamText(ctx, `The query failed: ${data.error}`);
    return { type: 'success' };
  }
  if (question.visual) {
    const [tool, args] = question.visual(data.rows);
    await runServerTool(ctx, tool, args, messageId);
  }
  await streamText(ctx, question.summarize(data));
  return { type: 'success' };
}

const greet = async (ctx, turn) => {
  const hello = /^(hi|hello|hey)\b/.test(turn.text);
  await streamText(
    ctx,
    `${hello ? 'Hello! ' : ''}I'm the demo agent: no model, no API key, no network. ${turn.raw && !hello ? `I have no keyword for "${turn.raw}". ` : ''}Type "help" to see what I can do.`,
  );
  return { type: 'success' };
};

// First match wins; order puts the specific phrases before the general ones.
const has =
  (...words) =>
  (turn) =>
    words.some((w) => new RegExp(`\\b${w}\\b`).test(turn.text));
const ROUTES = [
  [
    (t) => t.text === 'help' || t.text === '?' || t.text.startsWith('help'),
    async (ctx) => (await streamText(ctx, HELP), { type: 'success' }),
  ],
  [has('error'), failOnPurpose],
  [has('interrupt'), askToExport],
  [has('state'), stateDemo],
  [has('loop'), loopForever],
  [has('several', 'multi'), severalRounds],
  [has('where am i'), whereAmI],
  [(t) => has('copy')(t) && t.text.includes('clipboard'), copyToClipboard],
  [has('delete', 'approve'), requestApproval],
];

export async function plan(input, ctx) {
  const turn = readTurn(input);
  if (Array.isArray(input.resume) && input.resume.length > 0) return answerResume(ctx, turn);
  // Before the keywords: "sql: DELETE ..." is a query to refuse, not a request for approval.
  const own = userQuery(turn.raw);
  if (own) return answerData(ctx, turn, own);
  for (const [matches, step] of ROUTES) if (matches(turn)) return step(ctx, turn);
  const question = pickDataQuestion(turn.text);
  if (question) return answerData(ctx, turn, question);
  return greet(ctx, turn);
}

export function createPlannerBrain() {
  return { name: 'planner', run: (input, ctx) => plan(input, ctx) };
}
