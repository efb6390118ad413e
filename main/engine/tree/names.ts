/**
 * Source file names become node names. Almost every name passes through unchanged; the few that
 * ContextFS cannot hold (sidecar names, drive-letter look-alikes, encoded separators, back-slashes)
 * are rewritten the same way every time, so a re-ingest finds the node it wrote before.
 */
import { isSidecarName, validateSegment } from '../../../shared/uri.js';

export function safeNodeName(name: string): { name: string; changed: boolean } {
  let safe = name.normalize('NFC').replace(/\\/g, '_').replace(/%/g, '%25');
  if (/^[a-z]:/i.test(safe)) safe = `${safe[0]}_${safe.slice(2)}`;
  if (safe.startsWith('.cairn-tmp-')) safe = `_${safe}`;
  if (isSidecarName(safe)) safe = `${safe}_`;
  if (safe === '' || safe === '.' || safe === '..') safe = `_${safe}`;
  validateSegment(safe);
  return { name: safe, changed: safe !== name };
}

/**
 * Maps every name in one folder to a unique safe name. Two source names that sanitize to the
 * same node name (rare) get `~2`, `~3` in sorted order, so the mapping is stable.
 */
export function safeNamesFor(names: readonly string[]): Map<string, string> {
  const result = new Map<string, string>();
  const taken = new Set<string>();
  const sorted = [...names].sort();
  for (const original of sorted) {
    const { name, changed } = safeNodeName(original);
    if (!changed) taken.add(name);
  }
  for (const original of sorted) {
    const { name, changed } = safeNodeName(original);
    if (!changed) {
      result.set(original, name);
      continue;
    }
    let candidate = name;
    for (let n = 2; taken.has(candidate); n++) candidate = `${name}~${n}`;
    taken.add(candidate);
    result.set(original, candidate);
  }
  return result;
}
