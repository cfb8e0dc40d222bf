// What the tabs on one thread say to each other over its BroadcastChannel, as plain values: the
// shape each message must have before a runtime acts on it (any script of the origin can post on
// the channel), and what a tab taking charge keeps of the thread it showed while it followed.
// The runtime's "tabs on one thread" section does the rest (docs/persistence.md#tabs).

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v) => typeof v === 'string';

// JSON text of an object: small (a status, a state), so it is parsed to be sure.
function isObjectText(text) {
  if (!isString(text)) return false;
  try {
    return isObject(JSON.parse(text));
  } catch {
    return false;
  }
}

// A message list as JSON text. Not parsed here (it may be the whole thread, every 100 ms): its
// brackets are checked, and the follower reads it as the tab in charge wrote it.
const isListText = (text) => isString(text) && text.startsWith('[') && text.endsWith(']');

const isView = (v) =>
  isObject(v) &&
  isObjectText(v.status) &&
  (v.messages === undefined || isListText(v.messages)) &&
  (v.state === undefined || isObjectText(v.state));

// Each message type, and what it carries besides `type`, `from` and an optional `to`.
const SHAPES = {
  hello: () => true, // a follower joins (the tab in charge answers with a step to it)
  bye: () => true, // a follower leaves
  want: () => true, // a follower has the user's focus
  leader: () => true, // this tab is now in charge
  deleted: () => true, // the thread was deleted
  handover: (m) => isString(m.to), // the thread is written: `to` may take the lock
  step: (m) => Array.isArray(m.changes) && m.changes.every((c) => isObject(c) && isString(c.kind)) && isView(m.view),
  reply: (m) =>
    isString(m.id) &&
    (m.error === undefined || (isObject(m.error) && isString(m.error.code) && isString(m.error.message))),
};

/**
 * Whether `message` (as the channel delivered it) is one the tabs send: a known type from a named
 * tab, with the fields that type needs; a command names one of `commands`' own keys.
 */
export function fitsChannel(message, commands) {
  if (!isObject(message) || !isString(message.type) || !isString(message.from)) return false;
  if (message.to !== undefined && !isString(message.to)) return false;
  if (message.type === 'command')
    return isString(message.id) && Object.hasOwn(commands, message.op) && Array.isArray(message.args);
  return Object.hasOwn(SHAPES, message.type) && SHAPES[message.type](message);
}

const EXPORT_FORMAT = 'agui-client-tools/thread';

/**
 * The thread a tab taking charge opens: `stored` (the export the store holds, or null) with what
 * the tab showed while it followed (`shown`: {messages, state} as the tab in charge sent them, JSON
 * texts) and the store lacks, since the tab in charge writes at most once a second while a run
 * streams. Kept from what was shown: the messages the store does not have (appended in the order
 * shown), a message whose text only grew since it was stored, and the state (sent at once, so never
 * older than the store's). Not kept: the answer of a call the store holds in its round (the store
 * decides it: a call stored as running is closed as one that may have completed, never run again).
 * `lost`: the ids of the messages shown whose content the thread now lacks.
 */
export function withShown(stored, threadId, shown) {
  let messages;
  let state;
  try {
    messages = JSON.parse(shown?.messages ?? '[]');
    state = shown?.state === undefined ? undefined : JSON.parse(shown.state);
  } catch {
    return { thread: stored, lost: [] };
  }
  if (!Array.isArray(messages) || (!stored && messages.length === 0)) return { thread: stored, lost: [] };
  const base = stored ?? { format: EXPORT_FORMAT, version: 1, threadId, messages: [], state: {} };
  const list = [...base.messages];
  const at = new Map(list.map((m, i) => [m?.id, i]));
  const held = new Set((Array.isArray(base.calls) ? base.calls : []).map((c) => c?.toolCallId));
  const lost = [];
  for (const m of messages) {
    if (!isObject(m) || !isString(m.id)) continue;
    const i = at.get(m.id);
    if (i === undefined) {
      if (m.role === 'tool' && held.has(m.toolCallId)) lost.push(m.id);
      else at.set(m.id, list.push(m) - 1);
    } else if (grewFrom(m, list[i])) list[i] = m;
    else if (isString(m.content) && !(isString(list[i]?.content) && list[i].content.startsWith(m.content)))
      lost.push(m.id);
  }
  const thread = { ...base, messages: list };
  if (isObject(state)) thread.state = state;
  return { thread, lost };
}

// Whether `shown` is `stored` with more text: the same message but for a longer content.
function grewFrom(shown, stored) {
  if (!isString(shown.content) || !isString(stored?.content)) return false;
  if (shown.content.length <= stored.content.length || !shown.content.startsWith(stored.content)) return false;
  return JSON.stringify({ ...shown, content: '' }) === JSON.stringify({ ...stored, content: '' });
}
