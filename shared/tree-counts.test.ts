import { describe, expect, it } from 'vitest';
import { treeCounts } from './tree-counts';

describe('treeCounts', () => {
  it('counts a split document as one file and its parts as sections', () => {
    // git's RelNotes: 485 files in one folder, 85 split into 343 sections (829 nodes).
    const counts = { dirs_total: 86, dirs_done: 80, files_total: 743, files_done: 700, documents_total: 85, documents_done: 79, sections_total: 343, sections_done: 320, llm_calls: 0 };
    expect(treeCounts(counts)).toEqual({
      directories: { done: 1, total: 1 },
      files: { done: 700 - 320 + 79, total: 485 },
      sections: { done: 320, total: 343 },
    });
  });

  it('reads counts without the document fields as folders and files only', () => {
    expect(treeCounts({ dirs_total: 5, dirs_done: 5, files_total: 11, files_done: 11, llm_calls: 2 })).toEqual({
      directories: { done: 5, total: 5 },
      files: { done: 11, total: 11 },
      sections: { done: 0, total: 0 },
    });
  });
});
