// Derives the local embedder's English lexicon (assets/lexicon/wordnet-en.txt) from WordNet 3.0
// as Debian ships it (`apt-get install wordnet-base`: /usr/share/wordnet). Run by hand when the
// derivation changes; the output is committed, so neither the app nor the tests need WordNet.
//
// What is kept, and why (docs/embeddings.md): for every single-word lemma, its most frequent
// senses (WordNet orders a lemma's senses by frequency in its tagged corpus) as synset ids, so
// words that share a sense ("car", "automobile") share a feature; the direct hypernym of the
// first sense of nouns and verbs ("sedan" → car), so a specific word lands near its general one;
// and the synsets its first sense is derivationally related to ("decide" ↔ "decision"). Synsets
// are renumbered densely; a synset reached by only one word carries no signal and is dropped.
// Irregular forms (went → go, children → child) come from the `.exc` files.
//
// Usage: node scripts/derive-wordnet.mjs [--wordnet /usr/share/wordnet] [--out assets/lexicon/wordnet-en.txt]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const WORDNET = flag('--wordnet', '/usr/share/wordnet');
const OUT = flag('--out', join(ROOT, 'assets/lexicon/wordnet-en.txt'));
/** Senses kept per lemma and part of speech: later senses are rare and mostly noise. */
const SENSES_PER_POS = Number(flag('--senses', '2'));
/** Ancestors kept above a word's first sense ("guitar" → stringed instrument → musical instrument). */
const HYPERNYM_DEPTH = Number(flag('--hypernym-depth', '3'));
/** Ancestors with more synsets below them than this are too general to say anything ("act", "device"). */
const MAX_BELOW = Number(flag('--max-below', '400'));

const POS = [
  { name: 'noun', tag: 'n' },
  { name: 'verb', tag: 'v' },
  { name: 'adj', tag: 'a' },
  { name: 'adv', tag: 'r' },
];
const WORD = /^[a-z][a-z'-]*[a-z]$/;

/** offset key `${tag}${offset}` → { words, hypernyms, hyponyms, derivations: Map<word index, keys[]> } */
const synsets = new Map();
/** Every synset's definition and examples: a general-English corpus for document frequencies. */
const glosses = [];
for (const { name, tag } of POS) {
  for (const line of readFileSync(join(WORDNET, `data.${name}`), 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.split(' ');
    const offset = fields[0];
    const wordCount = parseInt(fields[3], 16);
    const words = [];
    let at = 4;
    for (let i = 0; i < wordCount; i += 1) {
      words.push(fields[at].toLowerCase().replace(/\(.*\)$/, ''));
      at += 2;
    }
    const pointerCount = Number(fields[at]);
    at += 1;
    const hypernyms = [];
    const hyponyms = [];
    const derivations = new Map();
    for (let i = 0; i < pointerCount; i += 1) {
      const [symbol, target, targetPos, sourceTarget] = fields.slice(at, at + 4);
      at += 4;
      const targetTag = targetPos === 's' ? 'a' : targetPos;
      const key = `${targetTag}${target}`;
      if (symbol === '@' || symbol === '@i') hypernyms.push(key);
      else if (symbol === '~' || symbol === '~i') hyponyms.push(key);
      else if (symbol === '+') {
        const source = parseInt(sourceTarget.slice(0, 2), 16);
        const list = derivations.get(source) ?? [];
        list.push(key);
        derivations.set(source, list);
      }
    }
    synsets.set(`${tag}${offset}`, { words, hypernyms, hyponyms, derivations });
    glosses.push(line.slice(line.indexOf('| ') + 2));
  }
}

/** How many synsets lie below each synset (its hyponym closure): a measure of how general it is. */
const below = new Map();
function countBelow(key, visiting = new Set()) {
  const known = below.get(key);
  if (known !== undefined) return known;
  if (visiting.has(key)) return 0;
  visiting.add(key);
  let count = 0;
  for (const child of synsets.get(key)?.hyponyms ?? []) count += 1 + countBelow(child, visiting);
  below.set(key, count);
  return count;
}

/** Ancestors of a synset up to HYPERNYM_DEPTH levels (first hypernym at each level), with their level. */
function ancestors(key) {
  const out = [];
  let current = key;
  for (let level = 1; level <= HYPERNYM_DEPTH; level += 1) {
    const parent = synsets.get(current)?.hypernyms[0];
    if (!parent || countBelow(parent) > MAX_BELOW) break;
    out.push({ key: parent, level });
    current = parent;
  }
  return out;
}

/** lemma → [{ key, kind }] in the order the embedder weights them. */
const lemmas = new Map();
for (const { name, tag } of POS) {
  for (const line of readFileSync(join(WORDNET, `index.${name}`), 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.trim().split(' ');
    const lemma = fields[0];
    if (!WORD.test(lemma)) continue;
    const senseCount = Number(fields[2]);
    const offsets = fields.slice(fields.length - senseCount);
    const entries = lemmas.get(lemma) ?? [];
    offsets.slice(0, SENSES_PER_POS).forEach((offset, rank) => {
      const key = `${tag}${offset}`;
      entries.push({ key, kind: '', rank });
      if (rank !== 0) return;
      const synset = synsets.get(key);
      if (!synset) return;
      if (tag === 'n' || tag === 'v') {
        for (const { key: ancestor, level } of ancestors(key)) entries.push({ key: ancestor, kind: '^'.repeat(level), rank: level });
      }
      const index = synset.words.indexOf(lemma) + 1;
      for (const derived of (synset.derivations.get(index) ?? []).slice(0, 2)) entries.push({ key: derived, kind: '+', rank });
    });
    lemmas.set(lemma, entries);
  }
}

// A synset only links words if at least two lemmas reach it.
const reach = new Map();
for (const entries of lemmas.values()) {
  for (const key of new Set(entries.map((entry) => entry.key))) reach.set(key, (reach.get(key) ?? 0) + 1);
}
const ids = new Map();
const lines = [];
for (const lemma of [...lemmas.keys()].sort()) {
  const seen = new Set();
  const parts = [];
  // Senses first (by rank across parts of speech), then hypernyms and derivations.
  const entries = lemmas.get(lemma).sort((a, b) => (a.kind === '') !== (b.kind === '') ? (a.kind === '' ? -1 : 1) : a.rank - b.rank);
  for (const { key, kind } of entries) {
    if ((reach.get(key) ?? 0) < 2 || seen.has(key)) continue;
    seen.add(key);
    if (!ids.has(key)) ids.set(key, ids.size);
    parts.push(kind + ids.get(key).toString(36));
  }
  if (parts.length > 0) lines.push(`${lemma}\t${parts.join(' ')}`);
}

// Irregular forms go in among the lemmas, one sorted list (the embedder searches it in place); a
// form that is a lemma itself keeps its own entry.
const exceptions = new Map();
for (const { name } of POS) {
  for (const line of readFileSync(join(WORDNET, `${name}.exc`), 'utf8').split('\n')) {
    const [form, base] = line.split(' ');
    if (!form || !base || !WORD.test(form) || form === base || !lemmas.has(base) || lemmas.has(form)) continue;
    exceptions.set(form, `${form}\t=${base}`);
  }
}

// Document frequency of each word over the glosses (one gloss = one document): the embedder's
// stand-in for IDF, so "the" weighs little and "porto" much. Words seen once carry no more than
// unseen ones (which get the maximum), so only df ≥ 2 is written.
const df = new Map();
for (const gloss of glosses) {
  for (const word of new Set(gloss.toLowerCase().match(/[a-z][a-z'-]*[a-z]/g) ?? [])) df.set(word, (df.get(word) ?? 0) + 1);
}
const frequencies = [...df].filter(([, count]) => count >= 2).sort(([a], [b]) => (a < b ? -1 : 1));
writeFileSync(
  OUT.replace(/wordnet-en\.txt$/, 'wordnet-en-df.txt'),
  [`# Document frequencies of words over the ${glosses.length} WordNet 3.0 glosses (scripts/derive-wordnet.mjs); see NOTICE-WordNet.txt.`, `#documents\t${glosses.length}`, ...frequencies.map(([word, count]) => `${word}\t${count}`)].join('\n') + '\n',
);

const header = [
  '# Cairn local embedder lexicon, derived from WordNet 3.0 by scripts/derive-wordnet.mjs',
  `# (senses per part of speech ${SENSES_PER_POS}; ancestors up to ${HYPERNYM_DEPTH} levels with at most ${MAX_BELOW} synsets below).`,
  '# Format: lemma TAB synset ids (base 36; ^ parent, ^^ grandparent, ...; + derivationally related), or = base form.',
  '# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. See NOTICE-WordNet.txt.',
];
mkdirSync(dirname(OUT), { recursive: true });
const keyOf = (line) => line.slice(0, line.indexOf('\t'));
const sorted = [...lines, ...exceptions.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
writeFileSync(OUT, [...header, ...sorted].join('\n') + '\n');
console.log(`${frequencies.length} document frequencies; ${lines.length} lemmas, ${exceptions.size} irregular forms, ${ids.size} synsets → ${OUT}`);
