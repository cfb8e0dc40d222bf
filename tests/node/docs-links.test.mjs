// The documentation's links hold together: every relative link and #anchor in
// README.md, docs/*.md and the package's README resolves (the file or folder
// exists; the anchor is a heading's GitHub slug), the README links every file of
// docs/, each of which opens with its title and links back to the README, and
// what the code's comments cite (a docs/ file, a README section) still exists.
// Reads files only: needs neither node_modules nor the built module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rel = (abs) => path.relative(ROOT, abs).split(path.sep).join('/');
const read = (abs) => fs.readFileSync(abs, 'utf8');

const DOCS = path.join(ROOT, 'docs');
const README = path.join(ROOT, 'README.md');
const docFiles = fs
  .readdirSync(DOCS)
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => path.join(DOCS, f));
const CHECKED = [README, ...docFiles, path.join(ROOT, 'js-shim', 'README.md')];

/** The lines of a markdown text outside fenced code blocks, with their numbers. */
function proseLines(text) {
  const out = [];
  let fence = null;
  text.split('\n').forEach((line, i) => {
    const m = /^\s*(```+|~~~+)/.exec(line);
    if (m) {
      if (fence === null) fence = m[1][0];
      else if (m[1][0] === fence) fence = null;
      return;
    }
    if (fence === null) out.push({ line, n: i + 1 });
  });
  return out;
}

/** GitHub's anchor for a heading: inline markup dropped, lower case, punctuation
 *  removed, spaces to hyphens; a repeated slug gets -1, -2, ... */
function slugs(text) {
  const seen = new Map();
  const out = new Set();
  for (const { line } of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const plain = m[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** The inline links `[text](target)` of a markdown text, outside code. */
function links(text) {
  const out = [];
  for (const { line, n } of proseLines(text)) {
    const bare = line.replace(/`[^`]*`/g, (s) => ' '.repeat(s.length));
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], n });
  }
  return out;
}

const isExternal = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** Where a relative link leads: the file or folder, and the anchor (or null). */
function resolve(from, target) {
  const hash = target.indexOf('#');
  const file = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
  return { abs: file === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(file)), anchor };
}

/** What is wrong with one file's relative links, as readable lines. */
function brokenLinks(file) {
  const problems = [];
  for (const { target, n } of links(read(file))) {
    if (isExternal(target)) continue;
    const { abs, anchor } = resolve(file, target);
    const where = `${rel(file)}:${n}: (${target})`;
    if (!abs.startsWith(ROOT + path.sep) && abs !== ROOT) {
      problems.push(`${where} leaves the repository`);
      continue;
    }
    if (!fs.existsSync(abs)) {
      problems.push(`${where}: ${rel(abs)} does not exist`);
      continue;
    }
    if (anchor === null) continue;
    if (!abs.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not markdown`);
    else if (!slugs(read(abs)).has(anchor))
      problems.push(`${where}: no heading in ${rel(abs)} has the anchor #${anchor}`);
  }
  return problems;
}

const linksTo = (from, target) =>
  links(read(from)).some(({ target: t }) => !isExternal(t) && resolve(from, t).abs === target);

test("the slugs are GitHub's: punctuation dropped, spaces to hyphens, repeats numbered", () => {
  const got = slugs(
    '# The core (C++)\n## Hardening: what was tried, and what was lost\n## `pattern` in a schema\n' +
      '```\n# not a heading\n```\n## Notes\n## Notes\n',
  );
  assert.deepEqual(
    [...got],
    ['the-core-c', 'hardening-what-was-tried-and-what-was-lost', 'pattern-in-a-schema', 'notes', 'notes-1'],
  );
});

test('the link reader skips code spans and fences, and splits a link into file and anchor', () => {
  const text = 'see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n[d](docs/d.md#x "title")\n';
  assert.deepEqual(
    links(text).map((l) => l.target),
    ['a.md', 'docs/d.md#x'],
  );
  const { abs, anchor } = resolve(README, 'docs/nowhere.md#x');
  assert.equal(rel(abs), 'docs/nowhere.md');
  assert.equal(anchor, 'x');
});

test('there is a docs/ folder with files to check', () => {
  assert.ok(docFiles.length > 0, 'docs/*.md');
});

for (const file of CHECKED) {
  test(`every relative link and anchor in ${rel(file)} resolves`, () => {
    assert.deepEqual(brokenLinks(file), []);
  });
}

test('the README links every file of docs/', () => {
  const missing = docFiles.filter((doc) => !linksTo(README, doc)).map(rel);
  assert.deepEqual(missing, [], 'docs files the README does not link');
});

for (const doc of docFiles) {
  test(`${rel(doc)} opens with its title and links back to the README`, () => {
    const lines = read(doc).split('\n');
    assert.match(lines[0], /^# \S/, 'the first line is its title');
    const end = lines.findIndex((l, i) => i > 2 && l.trim() === ''); // the end of the paragraph after the title
    const opening = lines.slice(0, end < 0 ? lines.length : end).join('\n');
    assert.ok(
      links(opening).some(({ target }) => !isExternal(target) && resolve(doc, target).abs === README),
      'its opening paragraph links to ../README.md',
    );
  });
}

// The code's comments and the package README name docs by path (`docs/ordering.md`)
// and README sections by title (README "Limits"): both must still be there.
const SOURCE_DIRS = ['wasm', 'bindings', 'js-shim', 'tests', 'demo-page'];
const SKIP = new Set(['node_modules', 'dist', 'fixtures', 'corpus', 'known', 'out', 'build']);
const SELF = fileURLToPath(import.meta.url); // its own examples name files that do not exist
const SOURCE_EXT = /\.(c|cc|cpp|h|hpp|js|mjs|cjs|ts|d\.ts|md|sh|txt|json|html|css)$|^CMakeLists\.txt$/;

function* sources(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) yield* sources(abs);
    } else if (SOURCE_EXT.test(entry.name) && !entry.name.endsWith('-lock.json') && abs !== SELF) {
      yield abs;
    }
  }
}

test('every docs/ file the code and the package README name exists, and every README section they cite', () => {
  const readmeSections = new Set(
    proseLines(read(README))
      .map(({ line }) => /^#{2,6}\s+(.*?)\s*$/.exec(line)?.[1])
      .filter(Boolean),
  );
  const problems = [];
  for (const dir of SOURCE_DIRS) {
    for (const file of sources(path.join(ROOT, dir))) {
      const text = read(file);
      for (const m of text.matchAll(/(?<![\w/.-])docs\/([\w.-]+\.md)/g)) {
        if (!fs.existsSync(path.join(DOCS, m[1]))) problems.push(`${rel(file)}: docs/${m[1]} does not exist`);
      }
      for (const m of text.matchAll(/README(?:'s)?,? (?:§ ?)?"([^"\n]+)"/g)) {
        if (!readmeSections.has(m[1])) problems.push(`${rel(file)}: README has no section "${m[1]}"`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
