// agui-client-tools/react under node (tests in jsdom, server rendering): the
// same hooks, with the node entry loaded first so the .wasm is read from disk.
import './node.js';

export * from './react.js';
