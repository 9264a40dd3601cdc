// U4: semantic version order (semver 2.0 §11), prerelease aware, to refuse a downgrade: an
// offered version is taken only when it is greater than the running one. Build metadata
// (`+…`) does not count. Anything that is not a version compares as unknown (null).

type Parsed = { core: [number, number, number]; pre: string[] };

const VERSION = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

export function parseVersion(text: string): Parsed | null {
  const m = VERSION.exec(text.trim());
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] === undefined ? [] : m[4].split(".") };
}

const NUMERIC = /^\d+$/;

function comparePre(a: string[], b: string[]): number {
  // A release is greater than any of its prereleases.
  if (a.length === 0 || b.length === 0) return a.length === b.length ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = NUMERIC.test(x);
    const yn = NUMERIC.test(y);
    if (xn && yn) return Number(x) < Number(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1; // numeric identifiers come first
    return x < y ? -1 : 1;
  }
  return 0;
}

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b`; null when either is not a version. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 | null {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (!pa || !pb) return null;
  for (let i = 0; i < 3; i++) {
    const x = pa.core[i] ?? 0;
    const y = pb.core[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  const c = comparePre(pa.pre, pb.pre);
  return c === 0 ? 0 : c < 0 ? -1 : 1;
}

/** True only when `offered` is a version strictly newer than `current`. */
export function isNewer(offered: string, current: string): boolean {
  return compareVersions(offered, current) === 1;
}
