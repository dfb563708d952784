// The Redis 7 multi-part AOF layout, so a sluice directory and a redis-server directory are
// interchangeable (redis-server 7 loads a sluice appendonlydir and vice versa):
//
//   DIR/appendonlydir/appendonly.aof.manifest        which files make up the log, in order
//   DIR/appendonlydir/appendonly.aof.<seq>.base.aof  a snapshot as commands (written by a rewrite)
//   DIR/appendonlydir/appendonly.aof.<seq>.incr.aof  commands logged after that snapshot
//
// Manifest lines are "file <name> seq <n> type <b|h|i>" (b = base, h = history, i = incr).
// The manifest is replaced atomically (write temp, fsync, rename, fsync dir), so a crash at any
// point leaves either the old or the new set of files in force.
import { join } from 'node:path';
import type { AofFs } from './fs-layer.js';

export interface AofFileInfo {
  name: string;
  seq: number;
  type: 'b' | 'h' | 'i';
}

export interface Manifest {
  base: AofFileInfo | null;
  incrs: AofFileInfo[];
  /** History files (type h) are leftovers to delete; never loaded. */
  history: AofFileInfo[];
}

export function baseName(prefix: string, seq: number): string {
  return `${prefix}.${seq}.base.aof`;
}

export function incrName(prefix: string, seq: number): string {
  return `${prefix}.${seq}.incr.aof`;
}

export function manifestName(prefix: string): string {
  return `${prefix}.manifest`;
}

export class ManifestError extends Error {}

export function parseManifest(text: string, file: string): Manifest {
  const manifest: Manifest = { base: null, incrs: [], history: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const words = line.split(/\s+/);
    const fields = new Map<string, string>();
    for (let w = 0; w + 1 < words.length; w += 2) fields.set(words[w]!, words[w + 1]!);
    const name = fields.get('file');
    const seq = Number(fields.get('seq'));
    const type = fields.get('type');
    if (name === undefined || !Number.isSafeInteger(seq) || (type !== 'b' && type !== 'h' && type !== 'i')) {
      throw new ManifestError(`Invalid AOF manifest file format: ${file} line ${i + 1}: ${line}`);
    }
    const info: AofFileInfo = { name, seq, type };
    if (type === 'b') {
      if (manifest.base !== null) throw new ManifestError(`Found duplicate base file information in ${file}`);
      manifest.base = info;
    } else if (type === 'i') {
      manifest.incrs.push(info);
    } else {
      manifest.history.push(info);
    }
  }
  manifest.incrs.sort((a, b) => a.seq - b.seq);
  return manifest;
}

export function formatManifest(m: Manifest): string {
  let out = '';
  const line = (f: AofFileInfo) => `file ${f.name} seq ${f.seq} type ${f.type}\n`;
  if (m.base !== null) out += line(m.base);
  for (const h of m.history) out += line(h);
  for (const i of m.incrs) out += line(i);
  return out;
}

/** Replaces the manifest atomically and durably. */
export function writeManifest(fs: AofFs, dir: string, prefix: string, m: Manifest): void {
  const final = join(dir, manifestName(prefix));
  const temp = join(dir, `temp-${manifestName(prefix)}`);
  fs.unlink(temp);
  const fd = fs.openAppend(temp);
  try {
    const buf = Buffer.from(formatManifest(m), 'utf8');
    let off = 0;
    while (off < buf.length) off += fs.write(fd, buf, off, buf.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.close(fd);
  }
  fs.rename(temp, final);
  fs.fsyncDir(dir);
}
