/**
 * The memories view: long-term memories by category, the one open with its history of changes,
 * editing it (title, content, category) and forgetting it. Every change the engine reports is
 * applied to the list in place, so the list never needs a reload to stay true.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { LongTermMemory, MemoryCategory, MemoryChange } from '../../shared/types/memory';
import type { CairnClient } from '../api/client';

type Phase = 'idle' | 'loading' | 'done' | 'failed';
export type CategoryFilter = 'all' | MemoryCategory;

export interface MemoryDraft {
  title: string;
  content: string;
  category: MemoryCategory;
}

export interface MemoriesState {
  memories: LongTermMemory[];
  status: Phase;
  error: string | null;
  category: CategoryFilter;
  openId: string | null;
  history: MemoryChange[];
  /** The edit in progress, or null when not editing. */
  draft: MemoryDraft | null;
  saving: boolean;
  /** The id whose forgetting waits for a confirmation. */
  confirmForget: string | null;
  refresh(): Promise<void>;
  setCategory(category: CategoryFilter): void;
  open(id: string | null): Promise<void>;
  startEdit(): void;
  setDraft(patch: Partial<MemoryDraft>): void;
  cancelEdit(): void;
  save(): Promise<void>;
  askForget(): void;
  cancelForget(): void;
  forget(): Promise<void>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Memories per category, categories sorted by name. */
export function countByCategory(memories: readonly LongTermMemory[]): { category: MemoryCategory; count: number }[] {
  const counts = new Map<MemoryCategory, number>();
  for (const m of memories) counts.set(m.category, (counts.get(m.category) ?? 0) + 1);
  return [...counts].map(([category, count]) => ({ category, count })).sort((a, b) => (a.category < b.category ? -1 : 1));
}

export function visibleMemories(memories: readonly LongTermMemory[], category: CategoryFilter): LongTermMemory[] {
  return category === 'all' ? [...memories] : memories.filter((m) => m.category === category);
}

export function createMemoriesStore(client: Pick<CairnClient, 'call'>): StoreApi<MemoriesState> {
  let openSeq = 0;

  const loadHistory = async (id: string, mine: number, set: (s: Partial<MemoriesState>) => void) => {
    const { changes } = await client.call('memories:history', { id });
    if (mine === openSeq) set({ history: changes });
  };

  return createStore<MemoriesState>()((set, get) => ({
    memories: [],
    status: 'idle',
    error: null,
    category: 'all',
    openId: null,
    history: [],
    draft: null,
    saving: false,
    confirmForget: null,

    async refresh() {
      set({ status: 'loading', error: null });
      try {
        const { memories } = await client.call('memories:list', {});
        set({ memories, status: 'done' });
      } catch (error) {
        set({ status: 'failed', error: message(error) });
      }
    },

    setCategory: (category) => set({ category }),

    async open(id) {
      const mine = ++openSeq;
      set({ openId: id, history: [], draft: null, confirmForget: null, error: null });
      if (!id) return;
      try {
        await loadHistory(id, mine, set);
      } catch (error) {
        if (mine === openSeq) set({ error: message(error) });
      }
    },

    startEdit() {
      const memory = get().memories.find((m) => m.id === get().openId);
      if (memory) set({ draft: { title: memory.title, content: memory.content, category: memory.category }, confirmForget: null });
    },
    setDraft(patch) {
      const draft = get().draft;
      if (draft) set({ draft: { ...draft, ...patch } });
    },
    cancelEdit: () => set({ draft: null }),

    async save() {
      const { draft, openId, memories } = get();
      const memory = memories.find((m) => m.id === openId);
      if (!draft || !memory || get().saving) return;
      // Send only what changed; an untouched draft is just closed.
      const patch: Partial<MemoryDraft> = {};
      if (draft.title.trim() !== memory.title) patch.title = draft.title.trim();
      if (draft.content.trim() !== memory.content) patch.content = draft.content.trim();
      if (draft.category !== memory.category) patch.category = draft.category;
      if (Object.keys(patch).length === 0) {
        set({ draft: null });
        return;
      }
      if (patch.title === '' || patch.content === '') {
        set({ error: 'empty' });
        return;
      }
      set({ saving: true, error: null });
      try {
        const { change } = await client.call('memories:edit', { id: memory.id, patch });
        const after = change.after;
        set({ saving: false, draft: null, memories: get().memories.map((m) => (m.id === memory.id && after ? after : m)) });
        await loadHistory(memory.id, openSeq, set);
      } catch (error) {
        set({ saving: false, error: message(error) });
      }
    },

    askForget: () => set({ confirmForget: get().openId, draft: null }),
    cancelForget: () => set({ confirmForget: null }),

    async forget() {
      const id = get().confirmForget;
      if (!id || id !== get().openId || get().saving) return;
      set({ saving: true, error: null });
      try {
        await client.call('memories:forget', { id, reason: 'forgotten by user' });
        set({ saving: false, confirmForget: null, memories: get().memories.filter((m) => m.id !== id) });
        await loadHistory(id, openSeq, set);
      } catch (error) {
        set({ saving: false, error: message(error) });
      }
    },
  }));
}
