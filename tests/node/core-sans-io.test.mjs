// The core is sans-I/O: nothing under wasm/ includes an Emscripten header, reads
// a clock or does I/O. The shim owns the network, the timers and the host's
// APIs; the core takes bytes and results and says what to do next. This reads
// every source under wasm/ and names each line that breaks the rule.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const WASM = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../wasm');

// What a line may not say, and why.
const FORBIDDEN = [
  [/#\s*include\s*[<"]emscripten/, 'an Emscripten header (only bindings/ may include one)'],
  [/\bEM_(JS|ASM\w*)\b|\bemscripten_\w+\s*\(/, 'an Emscripten call'],
  [
    /#\s*include\s*<(chrono|ctime|time\.h|sys\/time\.h)>|\bstd::chrono\b|\b(time|clock|gettimeofday|clock_gettime)\s*\(/,
    'a clock',
  ],
  [
    /#\s*include\s*<(fstream|iostream|istream|filesystem|thread|random|unistd\.h|fcntl\.h|sys\/\w+\.h)>/,
    'an I/O, thread or entropy header',
  ],
  [
    /\b(printf|fprintf|puts|fputs|fwrite|fread|fopen|getchar|getenv|system|std::cout|std::cerr|std::cin)\b\s*[(<]/,
    'I/O',
  ],
];

/** Every violation in the C++ sources under `dir`, as "file:line: what". */
export function violations(dir) {
  const found = [];
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    if (!/\.(cpp|hpp|h)$/.test(rel)) continue;
    const lines = fs.readFileSync(path.join(dir, rel), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, ''); // a comment may name what the code may not do
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(code)) found.push(`wasm/${rel}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  return found;
}

test('no file under wasm/ includes an Emscripten header, reads a clock or does I/O', () => {
  assert.deepEqual(violations(WASM), []);
});

test('the check itself catches each kind of violation', () => {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'sans-io-'));
  try {
    fs.mkdirSync(path.join(dir, 'part'));
    fs.writeFileSync(
      path.join(dir, 'part', 'bad.cpp'),
      [
        '#include <emscripten.h>',
        '#include <chrono>',
        'auto t = time(nullptr);',
        '#include <fstream>',
        'std::printf("x");',
        'std::cout << 1;',
        '// time(nullptr) in a comment is fine',
        'std::snprintf(buf, 4, "%d", 1);  // formatting is not I/O',
      ].join('\n'),
    );
    const found = violations(dir).map((v) => v.replace(/^wasm\/part\/bad\.cpp:(\d+): .*/, '$1'));
    assert.deepEqual(found, ['1', '2', '3', '4', '5', '6']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
