// createRuntime()'s options as the core's driver takes them, and the ids the
// shim makes up.
import { jsonArgument } from './errors.js';

let idCounter = 0;
export function randomId() {
  const c = globalThis.crypto;
  if (c && typeof c.randomUUID === 'function') return c.randomUUID();
  idCounter += 1;
  return `${Date.now().toString(36)}-${idCounter}-${Math.random().toString(36).slice(2, 10)}`;
}

// Keys of createRuntime() options that configure the core's driver.
const DRIVER_OPTIONS = [
  'maxRounds',
  'repeatLimit',
  'defaultTimeoutMs',
  'approvalTimeoutMs',
  'context',
  'forwardedProps',
  'placeholderResults',
];
const LIMIT_OPTIONS = [
  'maxEventBytes',
  'maxArgumentBytes',
  'maxResultBytes',
  'maxMessageBytes',
  'maxJsonDepth',
  'maxCallsPerRound',
];

/** The driver's open() text: its options and the thread to import, each bad value named. */
export function driverConfig(options, exported) {
  const parts = [`"idPrefix":${JSON.stringify(randomId().slice(0, 8))}`];
  const add = (key, value, where) =>
    value !== undefined && parts.push(`${JSON.stringify(key)}:${jsonArgument(where, value)}`);
  for (const key of DRIVER_OPTIONS) add(key, options[key], `createRuntime(): options.${key}`);
  for (const key of LIMIT_OPTIONS) add(key, options.limits?.[key], `createRuntime(): options.limits.${key}`);
  const config = `{"options":{${parts.join(',')}}`;
  return exported ? `${config},"export":${jsonArgument('createRuntime(): options.thread', exported)}}` : `${config}}`;
}
