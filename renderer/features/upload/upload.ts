/**
 * Browser mode's uploads (issue 8): a dropped or picked folder (the Home view) or a few files (the
 * Sessions view) are read in the page and sent to the web host file by file
 * (`main/host/upload.ts`), which keeps them under `<workspace>/uploads/<name>/`; the view then
 * hands that path (or each file's path in it) to the engine like any other.
 *
 * A drop gives `FileSystemEntry` objects, which must be taken during the drop event itself
 * (`entriesOfDrop`) and are walked afterwards (`walkEntries`); a directory reader returns its
 * entries in batches, so `readEntries` is called until it returns none. A picked folder
 * (`<input type=file webkitdirectory>`) gives files with a `webkitRelativePath`. Sending is in
 * upload-client.ts (no DOM types there, so the host's tests run it against a real host).
 */

import type { PickedFile, PickedFolder } from './upload-client';

export type { PickedFile, PickedFolder };

/** The entries of a drop. Call it inside the drop handler: the browser empties the list afterwards. */
export function entriesOfDrop(items: DataTransferItemList): FileSystemEntry[] {
  const entries: FileSystemEntry[] = [];
  for (const item of Array.from(items)) {
    if (item.kind !== 'file') continue;
    const entry = item.webkitGetAsEntry();
    if (entry) entries.push(entry);
  }
  return entries;
}

function readBatch(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/**
 * The files under dropped entries. One dropped folder keeps its name; anything else (loose files,
 * several folders) goes into a folder named `fallbackName`.
 */
export async function walkEntries(entries: readonly FileSystemEntry[], fallbackName: string): Promise<PickedFolder> {
  const files: PickedFile[] = [];
  const visitChildren = async (directory: FileSystemDirectoryEntry, path: string): Promise<void> => {
    const reader = directory.createReader();
    // readEntries answers in batches (100 in Chromium) and an empty batch at the end.
    for (let batch = await readBatch(reader); batch.length > 0; batch = await readBatch(reader)) {
      for (const child of batch) await visit(child, path);
    }
  };
  const visit = async (entry: FileSystemEntry, prefix: string): Promise<void> => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isFile) files.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
    else if (entry.isDirectory) await visitChildren(entry as FileSystemDirectoryEntry, path);
  };
  const single = entries.length === 1 && entries[0]!.isDirectory ? (entries[0] as FileSystemDirectoryEntry) : null;
  if (single) {
    await visitChildren(single, '');
    return { name: single.name, files };
  }
  for (const entry of entries) await visit(entry, '');
  return { name: fallbackName, files };
}

/** The folder an `<input type=file webkitdirectory>` picked: its files carry `top/sub/file` paths. */
export function folderOfInput(list: ArrayLike<File>, fallbackName: string): PickedFolder {
  const all = Array.from(list);
  const tops = new Set(all.map((f) => (f.webkitRelativePath || f.name).split('/')[0]));
  const name = tops.size === 1 && all[0]?.webkitRelativePath ? [...tops][0]! : fallbackName;
  const files = all.map((file) => {
    const relative = file.webkitRelativePath || file.name;
    return { path: name === fallbackName ? relative : relative.split('/').slice(1).join('/'), file };
  });
  return { name, files };
}

/** A folder name for loose files: `upload-20261201-1352` (or `<prefix>-20261201-1352`). */
export function fallbackFolderName(now = new Date(), prefix = 'upload'): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${prefix}-${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}`;
}

/**
 * Loose files (a multiple `<input type=file>`, or the files of a drop) as one upload named `name`,
 * each file at the top under its own name. A name seen before gets ` (2)`, ` (3)` before its
 * extension, so two dropped `export.json` from different folders both arrive.
 */
export function filesAsFolder(list: ArrayLike<File>, name: string): PickedFolder {
  const taken = new Set<string>();
  const files = Array.from(list).map((file) => {
    let path = file.name;
    const dot = path.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
    for (let n = 2; taken.has(path); n++) path = `${stem} (${n})${ext}`;
    taken.add(path);
    return { path, file };
  });
  return { name, files };
}

/**
 * Where each file of a finished upload sits on the host: the folder the host answered with, then
 * the file's relative path, in the host's own separator. Files the host refused are left out.
 */
export function hostPathsOf(folderPath: string, files: readonly Pick<PickedFile, 'path'>[], refused: readonly { path: string }[] = []): { name: string; path: string }[] {
  const sep = folderPath.includes('\\') && !folderPath.includes('/') ? '\\' : '/';
  const root = folderPath.endsWith(sep) ? folderPath.slice(0, -1) : folderPath;
  const skip = new Set(refused.map((f) => f.path));
  return files.filter((f) => !skip.has(f.path)).map((f) => ({ name: f.path, path: `${root}${sep}${f.path.split('/').join(sep)}` }));
}
