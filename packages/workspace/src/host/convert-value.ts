import type { Conversion } from './schema-mapping.js';

// App values to workspace values, as the service converts them: decimals from numbers or numeric
// strings, booleans from text (true/yes/on/1/checked), ranges and locations from objects or JSON
// strings, lists joined with ", ". A value that cannot be converted is stored empty (null) and
// counted, rather than failing the run.

const TRUE_WORDS = new Set(['true', 'yes', 'on', '1', 'checked']);
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

const parseJson = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function toIso(v: unknown): string | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const t = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

function toDay(v: unknown): string | undefined {
  if (typeof v === 'string' && DATE_RE.test(v)) return v;
  return toIso(v)?.slice(0, 10);
}

/** The workspace value, `null` for empty, or `undefined` when the value does not fit. */
export function convertValue(conversion: Conversion, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return null;
  switch (conversion) {
    case 'text':
    case 'email':
    case 'emoji':
      return typeof value === 'string'
        ? value
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value);
    case 'int': {
      const n = typeof value === 'string' ? Number(value) : value;
      return typeof n === 'number' && Number.isFinite(n) ? Math.round(n) : undefined;
    }
    case 'decimal': {
      if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
      if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value.trim()))
        return value.trim();
      return undefined;
    }
    case 'bool':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number') return value !== 0;
      return typeof value === 'string' ? TRUE_WORDS.has(value.trim().toLowerCase()) : undefined;
    case 'date':
      return toDay(value);
    case 'date-time':
      return toIso(value);
    case 'date-range':
    case 'date-time-range': {
      const o = parseJson(value);
      if (!isObject(o)) return undefined;
      const conv = conversion === 'date-range' ? toDay : toIso;
      const start = conv(o.start);
      const end = conv(o.end);
      return start && end ? { start, end } : undefined;
    }
    case 'location': {
      if (typeof value === 'string') {
        const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
        if (m) return { latitude: Number(m[1]), longitude: Number(m[2]), fullAddress: value.trim() };
      }
      const o = parseJson(value);
      if (!isObject(o)) return undefined;
      const latitude = Number(o.latitude);
      const longitude = Number(o.longitude);
      if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
      return {
        latitude,
        longitude,
        ...(typeof o.fullAddress === 'string' ? { fullAddress: o.fullAddress } : {}),
        ...(isObject(o.addressParts) ? { addressParts: o.addressParts } : {}),
      };
    }
    case 'list': {
      const items = Array.isArray(value) ? value : String(value).split(',');
      const texts = items
        .map((v) => (isObject(v) ? String(v.url ?? v.name ?? JSON.stringify(v)) : String(v).trim()))
        .filter((s) => s !== '');
      return texts.length > 0 ? texts.join(', ') : null;
    }
  }
}
