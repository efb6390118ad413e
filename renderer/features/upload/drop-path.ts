/**
 * What a view can learn from a drop about where the dropped things live. Pure, so it is unit-tested.
 *
 * A browser never tells a page where a dropped folder or file lives on disk; it only hands over
 * file contents (uploaded, see upload.ts). Some sources do put the location in the drag data: a
 * file manager's `text/uri-list` (`file:///home/me/notes`), or a path dragged as text; in Electron,
 * where the engine runs on this machine, that location is all an import needs.
 */

export interface DropData {
  uriList?: string;
  text?: string;
}

function pathOfFileUri(uri: string): string | null {
  try {
    const url = new URL(uri);
    if (url.host && url.host !== 'localhost') return null;
    const path = decodeURIComponent(url.pathname);
    // file:///C:/x on Windows: drop the slash before the drive letter.
    return /^\/[a-z]:\//i.test(path) ? path.slice(1) : path;
  } catch {
    return null;
  }
}

const isAbsolutePath = (text: string) => text.startsWith('/') || /^[a-z]:[\\/]/i.test(text);

/** An absolute local path from the drag data, or null when the drop carries none. */
export function pathFromDrop(data: DropData): string | null {
  const uri = (data.uriList ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line && !line.startsWith('#'));
  if (uri?.toLowerCase().startsWith('file://')) return pathOfFileUri(uri);
  const text = (data.text ?? '').trim();
  if (text && !text.includes('\n') && isAbsolutePath(text)) return text;
  if (text.toLowerCase().startsWith('file://')) return pathFromDrop({ uriList: text });
  return null;
}

/**
 * Every absolute local path in the drag data (several files dragged from a file manager), in
 * order and without repeats; [] when the drop carries none. Remote URIs are left out.
 */
export function pathsFromDrop(data: DropData): string[] {
  const uris = (data.uriList ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const lines = uris.length > 0 ? uris : (data.text ?? '').split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
  const paths = lines.map((line) => (line.toLowerCase().startsWith('file://') ? pathOfFileUri(line) : isAbsolutePath(line) ? line : null));
  return [...new Set(paths.filter((p): p is string => p !== null))];
}

/**
 * The paths on disk of dropped files, as the client can tell them (Electron; see
 * CairnClient.localPathOf), in order and without repeats; [] when it cannot.
 */
export function localPathsOfFiles(files: ArrayLike<File>, pathOf: (file: File) => string | null): string[] {
  const paths = Array.from(files, (file) => pathOf(file));
  return [...new Set(paths.filter((p): p is string => p !== null && p !== ''))];
}
