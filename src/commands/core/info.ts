// INFO's one section registry: built-in sections (info-sections.ts) and those other layers
// supply (the persistence layer replaces 'persistence') are registered the same way.

/** A section's "field:value" lines, without the "# Title" header. */
export type InfoLines = () => string[];

interface Section {
  lines: InfoLines;
  /** Shown by a plain INFO (and "default"); all sections are shown by "all"/"everything". */
  inDefault: boolean;
}

/** Titles that are not the name capitalised. */
const SECTION_TITLES: Record<string, string> = { cpu: 'CPU' };

export class InfoRegistry {
  /** In the order INFO prints them. */
  private readonly sections = new Map<string, Section>();

  /** Adds a section, or replaces one of that name keeping its place and default-ness. */
  register(name: string, lines: InfoLines, inDefault = false): void {
    const existing = this.sections.get(name);
    this.sections.set(name, { lines, inDefault: existing?.inDefault ?? inDefault });
  }

  /** A section's current provider (so a layer that replaces one can put it back). */
  lines(name: string): InfoLines | undefined {
    return this.sections.get(name)?.lines;
  }

  has(name: string): boolean {
    return this.sections.has(name);
  }

  /** The INFO text for the requested (lower-case) section names, as genRedisInfoString. */
  text(requested: string[]): string {
    let names: Iterable<string>;
    if (requested.length === 0 || requested.includes('default')) {
      names = [...this.sections].filter(([, s]) => s.inDefault).map(([name]) => name);
    } else if (requested.includes('all') || requested.includes('everything')) {
      names = this.sections.keys();
    } else {
      names = new Set(requested);
    }
    const parts: string[] = [];
    for (const name of names) {
      const section = this.sections.get(name);
      if (section === undefined) continue;
      const title = SECTION_TITLES[name] ?? name[0]!.toUpperCase() + name.slice(1);
      parts.push(`# ${title}\r\n${section.lines().map((l) => `${l}\r\n`).join('')}`);
    }
    return parts.join('\r\n');
  }
}
