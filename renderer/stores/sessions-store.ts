/**
 * The sessions view: the conversations in the workspace, importing one by path (or several files,
 * each on its own: dropped or chosen in Electron, uploaded first in a browser), the one open with
 * its messages and its dual-track analysis, the chain node chosen in the graph, and committing the
 * conversation to long-term memory.
 *
 * Only the latest opened conversation counts: a response for one opened before it is dropped, so
 * the messages and the analysis on show always belong to the same conversation.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { SessionAnalysisResult, SessionCommitResult, StoredConversation } from '../../shared/contracts/api';
import type { ChainNode, Conversation, ExtractedChain, Message } from '../../shared/types/memory';
import type { CairnClient } from '../api/client';

type Phase = 'idle' | 'loading' | 'done' | 'failed';
export const SESSION_TABS = ['messages', 'buckets', 'clusters', 'chains', 'fusion', 'trigger'] as const;
export type SessionTab = (typeof SESSION_TABS)[number];

/** One file of a multi-file import, and how it went. */
export interface FileImport {
  /** The file as the person knows it: its name, or its path in the drop. */
  name: string;
  /** Where it is on the engine's machine. */
  path: string;
  status: 'waiting' | 'importing' | 'done' | 'failed';
  /** The conversations it held (ids), once imported. */
  conversations: string[];
  /** The engine's error, when it was not imported. */
  error: { code: string; message: string } | null;
}

export interface SessionsState {
  conversations: StoredConversation[];
  listStatus: Phase;
  importPath: string;
  importStatus: Phase;
  /** What the last import added (ids of the conversations), or its error. */
  imported: string[];
  error: string | null;
  /** The files of the last multi-file import (`importFiles`), each with its outcome. */
  fileImports: FileImport[];
  /** The conversation open, by id. */
  openId: string | null;
  conversation: Conversation | null;
  analysis: SessionAnalysisResult | null;
  analysisStatus: Phase;
  /** The chain node chosen in the graph: `{chain_id}/{node id}`. */
  chosenNode: string | null;
  commitStatus: Phase;
  commit: SessionCommitResult | null;
  tab: SessionTab;
  setTab(tab: SessionTab): void;
  setImportPath(path: string): void;
  refresh(): Promise<void>;
  importPathNow(): Promise<void>;
  /**
   * Imports files one by one; a file the engine refuses (not a conversation, broken JSON) keeps
   * its error and the others still import. Then the list is refreshed and the first imported
   * conversation opened (and so analyzed).
   */
  importFiles(files: readonly { name: string; path: string }[]): Promise<void>;
  open(id: string): Promise<void>;
  chooseNode(key: string | null): void;
  commitOpen(): Promise<void>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const codeOf = (error: unknown) => (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'INTERNAL');

/** Every message of a conversation, in order across its sessions. */
export function allMessages(conversation: Conversation | null): (Message & { session_id: string })[] {
  return conversation ? conversation.sessions.flatMap((s) => s.messages.map((m) => ({ ...m, session_id: s.id }))) : [];
}

export const nodeKey = (chain: Pick<ExtractedChain, 'chain_id'>, node: Pick<ChainNode, 'id'>) => `${chain.chain_id}/${node.id}`;

/** The chain node a key names, with its chain, or null. */
export function findNode(analysis: SessionAnalysisResult | null, key: string | null): { chain: ExtractedChain; node: ChainNode } | null {
  if (!analysis || !key) return null;
  for (const chain of analysis.chains) {
    for (const node of chain.nodes) if (nodeKey(chain, node) === key) return { chain, node };
  }
  return null;
}

export function createSessionsStore(client: Pick<CairnClient, 'call'>): StoreApi<SessionsState> {
  let openSeq = 0;

  return createStore<SessionsState>()((set, get) => ({
    conversations: [],
    listStatus: 'idle',
    importPath: '',
    importStatus: 'idle',
    imported: [],
    error: null,
    fileImports: [],
    openId: null,
    conversation: null,
    analysis: null,
    analysisStatus: 'idle',
    chosenNode: null,
    commitStatus: 'idle',
    commit: null,
    tab: 'messages',

    setTab: (tab) => set({ tab }),
    setImportPath: (importPath) => set({ importPath }),

    async refresh() {
      set({ listStatus: 'loading' });
      try {
        const { conversations } = await client.call('sessions:list', {});
        set({ conversations, listStatus: 'done' });
      } catch (error) {
        set({ listStatus: 'failed', error: message(error) });
      }
    },

    async importPathNow() {
      const path = get().importPath.trim();
      if (!path) return;
      set({ importStatus: 'loading', error: null, imported: [], fileImports: [] });
      try {
        const { conversations } = await client.call('sessions:import', { path });
        set({ importStatus: 'done', imported: conversations.map((c) => c.id) });
        await get().refresh();
        const first = conversations[0];
        if (first) await get().open(first.id);
      } catch (error) {
        set({ importStatus: 'failed', error: message(error) });
      }
    },

    async importFiles(files) {
      if (files.length === 0 || get().importStatus === 'loading') return;
      let list: FileImport[] = files.map((f) => ({ name: f.name, path: f.path, status: 'waiting', conversations: [], error: null }));
      const update = (index: number, patch: Partial<FileImport>) => {
        list = list.map((item, i) => (i === index ? { ...item, ...patch } : item));
        set({ fileImports: list });
      };
      set({ importStatus: 'loading', error: null, imported: [], fileImports: list });
      const imported: string[] = [];
      for (const [index, file] of files.entries()) {
        update(index, { status: 'importing' });
        try {
          const { conversations } = await client.call('sessions:import', { path: file.path });
          const ids = conversations.map((c) => c.id);
          imported.push(...ids.filter((id) => !imported.includes(id)));
          update(index, { status: 'done', conversations: ids });
        } catch (error) {
          update(index, { status: 'failed', error: { code: codeOf(error), message: message(error) } });
        }
      }
      const failed = list.filter((f) => f.status === 'failed');
      if (failed.length === list.length) {
        set({ importStatus: 'failed', imported, error: failed.length === 1 ? (failed[0]!.error?.message ?? null) : null });
        return;
      }
      set({ importStatus: 'done', imported });
      await get().refresh();
      const first = imported[0];
      if (first) await get().open(first);
    },

    async open(id) {
      const mine = ++openSeq;
      set({ openId: id, conversation: null, analysis: null, analysisStatus: 'loading', chosenNode: null, commit: null, commitStatus: 'idle', error: null });
      try {
        const { conversation } = await client.call('sessions:get', { id });
        if (mine !== openSeq) return;
        set({ conversation });
        const analysis = await client.call('sessions:analyze', { id });
        if (mine !== openSeq) return;
        set({ analysis, analysisStatus: 'done' });
        // The analysis is now stored next to the conversation.
        set({ conversations: get().conversations.map((c) => (c.id === id ? { ...c, analyzed: true } : c)) });
      } catch (error) {
        if (mine !== openSeq) return;
        set({ analysisStatus: 'failed', error: message(error) });
      }
    },

    chooseNode: (chosenNode) => set({ chosenNode: chosenNode === get().chosenNode ? null : chosenNode }),

    async commitOpen() {
      const id = get().openId;
      if (!id || get().commitStatus === 'loading') return;
      set({ commitStatus: 'loading', error: null });
      try {
        const commit = await client.call('sessions:commit', { id });
        if (get().openId !== id) return;
        set({ commit, commitStatus: 'done' });
      } catch (error) {
        set({ commitStatus: 'failed', error: message(error) });
      }
    },
  }));
}
