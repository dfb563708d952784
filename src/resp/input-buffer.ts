// Byte accumulator shared by the request and reply parsers.
//
// Bytes live in one contiguous Buffer (an "arena") so the parsers can use indexOf and
// index arithmetic. It is append-only: bytes already written are never overwritten, so
// subarrays the parsers hand out (command arguments, raw replies) stay valid for ever,
// whatever is pushed later. New data goes into the arena's free tail when it fits; when
// it does not, the unread bytes move to a fresh arena of about twice the needed size, so
// a large message arriving in many small chunks is copied O(1) times per byte on average.
import { Buffer } from 'node:buffer';

const EMPTY = Buffer.alloc(0);
/** Arena size for copied reads: a busy connection's reads fill it one after another. */
const COPY_ARENA = 16 * 1024;
/** An empty arena at most this big, with at least MIN_ROOM free, is kept for the next read. */
const KEEP_ARENA = 64 * 1024;
const MIN_ROOM = 1024;

export class InputBuffer {
  /** The arena. Valid unread bytes are buf[start, end). */
  buf: Buffer = EMPTY;
  start = 0;
  end = 0;

  get length(): number {
    return this.end - this.start;
  }

  /**
   * Appends a chunk. The caller must not modify it afterwards: when nothing is pending the
   * chunk itself becomes the arena (no copy), and arguments may be subarrays of it.
   */
  push(chunk: Buffer): void {
    const n = chunk.length;
    if (n === 0) return;
    if (this.start === this.end && this.buf.length - this.end < n) {
      // Nothing pending and no room reserved: the chunk itself becomes the arena.
      this.buf = chunk;
      this.start = 0;
      this.end = n;
    } else if (this.buf.length - this.end >= n) {
      chunk.copy(this.buf, this.end);
      this.end += n;
    } else {
      this.grow(2 * (this.length + n));
      chunk.copy(this.buf, this.end);
      this.end += n;
    }
  }

  /**
   * Appends bytes that are only valid during this call (a read into a shared buffer): they are
   * copied into the arena's free tail, or a new arena when the tail is too small.
   */
  pushCopy(bytes: Buffer): void {
    const n = bytes.length;
    if (n === 0) return;
    if (this.buf.length - this.end < n) this.grow(Math.max(2 * (this.length + n), COPY_ARENA));
    bytes.copy(this.buf, this.end);
    this.end += n;
  }

  /**
   * Makes room for exactly `bytes` unread bytes from `start` (a big bulk argument whose length
   * is known), so it is copied once into a buffer of its own size instead of doubling: the
   * query buffer of a 200 MB argument costs 200 MB, as in Redis. The pages of a large
   * allocUnsafe are only resident once written, so a declared but unsent length costs nothing.
   */
  reserve(bytes: number): void {
    if (this.buf.length - this.start >= bytes) return;
    this.grow(bytes);
  }

  /** Drops the arena whatever it holds (the connection is gone). */
  release(): void {
    this.buf = EMPTY;
    this.start = this.end = 0;
  }

  /** Bytes allocated for the arena (the query buffer's size, as Redis's qbuf + qbuf-free). */
  get capacity(): number {
    return this.buf.length;
  }

  /** Marks bytes up to absolute offset `to` as read. */
  consume(to: number): void {
    this.start = to;
  }

  /**
   * Drops the arena once everything is read, so an idle connection holds no buffer (the
   * next chunk is adopted without a copy anyway). Views handed out keep their own memory.
   * A small arena with room left is kept for the next copied read; releaseIfIdle drops it.
   */
  releaseIfEmpty(): void {
    if (this.start === this.end && this.buf.length > 0) {
      if (this.buf.length <= KEEP_ARENA && this.buf.length - this.end >= MIN_ROOM) return;
      this.releaseIfIdle();
    }
  }

  /** Drops the arena when nothing is pending, whatever its size (the connection went quiet). */
  releaseIfIdle(): void {
    if (this.start === this.end) {
      this.buf = EMPTY;
      this.start = this.end = 0;
    }
  }

  private grow(capacity: number): void {
    // allocUnsafe: every byte the parsers read has been written by push() first.
    const next = Buffer.allocUnsafe(Math.max(capacity, 4096));
    this.buf.copy(next, 0, this.start, this.end);
    this.end -= this.start;
    this.start = 0;
    this.buf = next;
  }
}
