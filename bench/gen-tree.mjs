// Writes a deterministic tree of small files of mixed kinds (Markdown, text, Python, TypeScript,
// Go, C, JSON, HTML) for the ingest at scale (issue 20: "an ingest of 50k files ... ≤ 1 GiB").
// The same arguments give the same bytes on every machine (seeded by test/support/prng.ts).
//
// Usage: node bench/gen-tree.mjs DIR [--files 50000] [--seed 20]
// Prints one JSON line: { dir, files, folders, bytes }.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArgs, importTs } from './lib/bundle.mjs';

const args = process.argv.slice(2);
const { option } = cliArgs(args);
const FILES = Number(option('--files', '50000'));
const SEED = Number(option('--seed', '20'));
const dir = args[0];
if (!dir || args.length !== 1 || !(FILES > 0)) {
  console.error('Usage: node bench/gen-tree.mjs DIR [--files 50000] [--seed 20]');
  process.exit(2);
}

const { prng } = await importTs('gen-tree', [{ from: './test/support/prng.ts', names: ['prng'] }]);
const random = prng(SEED);
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

// A vocabulary of everyday technical words, so the text has repeats and rare words as real text does.
const WORDS = (
  'station antenna uplink battery voltage sensor reading packet frame queue buffer retry timeout ' +
  'schedule window storm front pressure humidity gauge calibration offset drift sample average ' +
  'median threshold alarm report archive index search record level summary folder release ' +
  'network socket handshake session token cache eviction policy quota budget worker thread ' +
  'parser grammar syntax module import export config option default version upgrade migration ' +
  'schema column table query filter vector embedding cosine distance cluster partition shard'
).split(' ');
const sentence = () => {
  const words = Array.from({ length: int(6, 18) }, () => pick(WORDS));
  return `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}.`;
};
const paragraph = () => Array.from({ length: int(2, 6) }, sentence).join(' ');
const ident = () => `${pick(WORDS)}${pick(WORDS).replace(/^./, (c) => c.toUpperCase())}`;

const KINDS = {
  md: () => `# ${sentence().slice(0, -1)}\n\n${Array.from({ length: int(1, 4) }, () => `## ${ident()}\n\n${paragraph()}\n`).join('\n')}`,
  txt: () => Array.from({ length: int(1, 5) }, paragraph).join('\n\n') + '\n',
  py: () => `"""${sentence()}"""\nimport os\n\n` + Array.from({ length: int(1, 5) }, () => `def ${ident()}(value, limit=${int(1, 99)}):\n    """${sentence()}"""\n    return [v for v in value if v < limit]\n`).join('\n'),
  ts: () => `/** ${sentence()} */\n` + Array.from({ length: int(1, 5) }, () => `export function ${ident()}(input: number[], limit = ${int(1, 99)}): number[] {\n  // ${sentence()}\n  return input.filter((v) => v < limit);\n}\n`).join('\n'),
  go: () => `// Package ${pick(WORDS)} ${sentence().toLowerCase()}\npackage ${pick(WORDS)}\n\n` + Array.from({ length: int(1, 5) }, () => `// ${ident()} ${sentence().toLowerCase()}\nfunc ${ident()}(values []int, limit int) []int {\n\tout := values[:0]\n\tfor _, v := range values {\n\t\tif v < limit {\n\t\t\tout = append(out, v)\n\t\t}\n\t}\n\treturn out\n}\n`).join('\n'),
  c: () => `/* ${sentence()} */\n#include <stdio.h>\n\n` + Array.from({ length: int(1, 4) }, () => `static int ${ident()}(const int *values, int n) {\n  int total = 0; /* ${sentence()} */\n  for (int i = 0; i < n; i++) total += values[i];\n  return total;\n}\n`).join('\n'),
  json: () => JSON.stringify(Object.fromEntries(Array.from({ length: int(2, 10) }, () => [ident(), random() < 0.5 ? int(0, 1000) : sentence()])), null, 2) + '\n',
  html: () => `<!doctype html>\n<html><head><title>${sentence()}</title></head><body>\n<main><h1>${ident()}</h1>\n${Array.from({ length: int(1, 4) }, () => `<p>${paragraph()}</p>`).join('\n')}\n</main></body></html>\n`,
};
// Weights: mostly prose and code, as a docs-and-source tree is.
const MIX = ['md', 'md', 'md', 'txt', 'txt', 'py', 'py', 'ts', 'ts', 'go', 'go', 'c', 'json', 'html'];

let bytes = 0;
let folders = 0;
for (let i = 0; i < FILES; ) {
  // Folders of 5 to 60 files, two levels deep: about 1,500 folders for 50k files.
  const folder = join(dir, `area-${String(Math.floor(folders / 40)).padStart(3, '0')}`, `${pick(WORDS)}-${String(folders).padStart(5, '0')}`);
  mkdirSync(folder, { recursive: true });
  folders += 1;
  for (let n = int(5, 60); n > 0 && i < FILES; n -= 1, i += 1) {
    const kind = pick(MIX);
    const text = KINDS[kind]();
    writeFileSync(join(folder, `${ident()}-${i}.${kind}`), text);
    bytes += Buffer.byteLength(text);
  }
}
console.log(JSON.stringify({ dir, files: FILES, folders, bytes }));
