// What a damaged JSON file still says. A file cut short (a crash mid-write, a full disk) or
// broken by stray bytes is read up to the damage: every member complete before it is kept,
// the member the damage falls in is dropped, and an object or list left open is closed
// there. What follows the damage is lost from the value, never from the file: the caller
// keeps the bytes (main/core/damaged-file.ts).

/** Deeper than this is no settings file: the rest counts as damage (and the stack stays small). */
const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

/** Raised where the text stops making sense; `partial` is what the open value held by then. */
class Damage {
  readonly partial: unknown;
  constructor(partial: unknown) {
    this.partial = partial;
  }
}

/**
 * The value the text starts with, as far as it can be read: the whole value when the text
 * is JSON (anything after it is ignored), else what came before the damage; undefined when
 * nothing could be read.
 */
export function readableJsonPrefix(text: string): unknown {
  const reader = new PrefixReader(text.replace(/^\uFEFF/, ""));
  try {
    return reader.value(0);
  } catch (err) {
    if (err instanceof Damage) return err.partial;
    throw err;
  }
}

class PrefixReader {
  private at = 0;
  private readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  value(depth: number): unknown {
    this.skipWhitespace();
    const c = this.text[this.at];
    if (c === "{") return this.object(depth + 1);
    if (c === "[") return this.list(depth + 1);
    if (c === '"') return this.string();
    for (const [word, meaning] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return meaning;
      }
    }
    NUMBER.lastIndex = this.at;
    const number = NUMBER.exec(this.text);
    // A number at the very end may have been cut short (123 → 12): not read.
    if (!number || NUMBER.lastIndex >= this.text.length) throw new Damage(undefined);
    this.at = NUMBER.lastIndex;
    return Number(number[0]);
  }

  private object(depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw new Damage(undefined);
    this.at++;
    const out: Record<string, unknown> = {};
    if (this.next() === "}") return this.close(out);
    for (;;) {
      if (this.next() !== '"') throw new Damage(out);
      const key = this.attempt(() => this.string(), out);
      if (this.next() !== ":") throw new Damage(out);
      this.at++;
      try {
        keep(out, key, this.value(depth));
      } catch (err) {
        if (err instanceof Damage && err.partial !== undefined) keep(out, key, err.partial);
        throw err instanceof Damage ? new Damage(out) : err;
      }
      const after = this.next();
      if (after === "}") return this.close(out);
      if (after !== ",") throw new Damage(out);
      this.at++;
      this.skipWhitespace();
    }
  }

  private list(depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw new Damage(undefined);
    this.at++;
    const out: unknown[] = [];
    if (this.next() === "]") return this.close(out);
    for (;;) {
      try {
        out.push(this.value(depth));
      } catch (err) {
        if (err instanceof Damage && err.partial !== undefined) out.push(err.partial);
        throw err instanceof Damage ? new Damage(out) : err;
      }
      const after = this.next();
      if (after === "]") return this.close(out);
      if (after !== ",") throw new Damage(out);
      this.at++;
    }
  }

  private string(): string {
    let end = this.at + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === "\\" ? 2 : 1;
    if (end >= this.text.length) throw new Damage(undefined);
    // JSON.parse decodes the escapes and refuses a bad one or a raw control character.
    const decoded = this.attempt(() => JSON.parse(this.text.slice(this.at, end + 1)) as string, undefined);
    this.at = end + 1;
    return decoded;
  }

  private attempt<T>(read: () => T, partial: unknown): T {
    try {
      return read();
    } catch {
      throw new Damage(partial);
    }
  }

  private close<T>(value: T): T {
    this.at++;
    return value;
  }

  /** The next character that is not whitespace (not consumed). */
  private next(): string | undefined {
    this.skipWhitespace();
    return this.text[this.at];
  }

  private skipWhitespace(): void {
    WHITESPACE.lastIndex = this.at;
    WHITESPACE.exec(this.text);
    this.at = WHITESPACE.lastIndex;
  }
}

/** An own property, as JSON.parse makes it: a key like `__proto__` is data, not a prototype. */
function keep(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
