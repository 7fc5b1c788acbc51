import { HashMap64 } from '../hashes/hash-map.js';
import type { DigestTable } from './digest-table.js';

type Json = Record<string, unknown>;

/** Rows shown per kind of drift and type. */
export const DRIFT_SAMPLES = 5;

/** One row that drifted. */
export interface DriftSample {
  id: string;
  /** changed: the fields whose values differ */
  fields?: string[];
  /** missing: the row of the full sync; changed: its values of the fields that differ */
  actual?: Json;
  /** changed: the values the compared state holds, when the caller can look them up */
  expected?: Json;
}

/**
 * How a type's state (what the previous sync and the delta since left) compares with a fresh full
 * sync. `missing`: ids the full sync has and the state lacks (the delta never added them);
 * `extra`: ids the state has and the full sync lacks (the delta never removed them); `changed`:
 * ids in both whose values differ (the delta never updated them). An id that changes between
 * syncs shows as one missing and one extra row.
 */
export interface TypeDrift {
  type: string;
  /** rows of the full sync */
  rows: number;
  /** rows of the compared state */
  stateRows: number;
  missing: number;
  extra: number;
  changed: number;
  samples: { missing: DriftSample[]; extra: DriftSample[]; changed: DriftSample[] };
}

export const hasDrift = (d: TypeDrift): boolean => d.missing + d.extra + d.changed > 0;

/** Compares the rows of a fresh full sync, one at a time, with a state held as digests. */
export class DriftCheck {
  private rows = 0;
  private missing = 0;
  private changed = 0;
  private readonly samples: TypeDrift['samples'] = { missing: [], extra: [], changed: [] };
  /** missing ids as hashes, so that one sent twice counts once */
  private readonly missingIds = new HashMap64();

  constructor(
    readonly type: string,
    private readonly state: DigestTable,
    private readonly sampleSize = DRIFT_SAMPLES,
  ) {
    state.clearMarks();
  }

  /** One row of the full sync, its values converted as the state's were; `shown` names it in samples. */
  see(id: string, row: Json, shown = id): void {
    this.rows++;
    const differ = this.state.compare(id, row);
    if (differ === undefined) {
      // An id sent twice by the full sync is one row, as the service stores it.
      if (!this.missingIds.set(id)) return;
      this.missing++;
      if (this.samples.missing.length < this.sampleSize)
        this.samples.missing.push({ id: shown, actual: row });
      return;
    }
    if (differ.length === 0) return;
    this.changed++;
    if (this.samples.changed.length < this.sampleSize)
      this.samples.changed.push({
        id: shown,
        fields: differ,
        actual: Object.fromEntries(differ.map((f) => [f, row[f] ?? null])),
      });
  }

  finish(): TypeDrift {
    let extra = 0;
    this.state.forEachUnseen((id) => {
      extra++;
      if (this.samples.extra.length < this.sampleSize) this.samples.extra.push({ id });
    });
    return {
      type: this.type,
      rows: this.rows,
      stateRows: this.state.size,
      missing: this.missing,
      extra,
      changed: this.changed,
      samples: this.samples,
    };
  }
}
