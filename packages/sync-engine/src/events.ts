import type { DataPage } from './data-page.js';

// The events of reading one type's pages, as a consumer that stores them sees them.

type Json = Record<string, unknown>;

export interface PageEvent extends DataPage {
  kind: 'page';
  type: string;
  /** 1-based */
  page: number;
  /** what was sent as `pagination` to get this page (store it to resume from this page) */
  pagination: Json | null;
}

export interface RetryEvent {
  kind: 'retry';
  type: string;
  page: number;
  attempt: number;
  delayMs: number;
  message: string;
}

export interface DoneEvent {
  kind: 'done';
  type: string;
  pages: number;
  synchronizationType: 'full' | 'delta';
}

export type SyncEvent = PageEvent | RetryEvent | DoneEvent;
