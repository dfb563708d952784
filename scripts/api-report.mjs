// Writes api/sluice.api.md with API Extractor: every export of the package entry with its full
// type, read from the emitted declarations (dist/src/index.d.ts) as a consumer's compiler reads
// them, so that a change to the public surface shows in review. Settings: api-extractor.json.
//   npm run api                            build, then rewrite the report
//   node scripts/api-report.mjs --check    exit 1, printing the difference, when the report is stale
//   --entry DIR/index.d.ts                 analyze other declarations (test/api checks a modified copy)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reportPath = join(root, 'api/sluice.api.md');
const check = process.argv.includes('--check');
const entryFlag = process.argv.indexOf('--entry');
const entry = entryFlag === -1 ? join(root, 'dist/src/index.d.ts') : resolve(process.argv[entryFlag + 1]);

const configPath = join(root, 'api-extractor.json');
const configObject = ExtractorConfig.loadFile(configPath);
configObject.mainEntryPointFilePath = entry;
configObject.compiler.overrideTsconfig.files = [entry];
// The report API Extractor compares against the committed one goes to a scratch folder.
const scratch = mkdtempSync(join(tmpdir(), 'sluice-api-'));
configObject.apiReport.reportTempFolder = scratch;
const config = ExtractorConfig.prepare({ configObject, configObjectFullPath: configPath, packageJsonFullPath: join(root, 'package.json') });

try {
  const result = Extractor.invoke(config, {
    localBuild: !check,
    messageCallback(message) {
      // Said below (with the difference, when stale).
      if (['console-api-report-not-copied', 'console-api-report-copied', 'console-api-report-unchanged', 'console-api-report-created'].includes(message.messageId)) message.handled = true;
    },
  });
  if (result.errorCount > 0) {
    console.error(`API Extractor failed on ${relative(root, entry)} (${result.errorCount} errors)`);
    process.exitCode = 1;
  } else if (check && result.apiReportChanged) {
    console.error(`api/sluice.api.md is stale for ${relative(root, entry)}: run \`npm run api\` and review the change`);
    console.error(lineDifference(readFileSync(reportPath, 'utf8'), readFileSync(join(scratch, 'sluice.api.md'), 'utf8')));
    process.exitCode = 1;
  } else if (!check) {
    console.log(`${result.apiReportChanged ? 'updated' : 'unchanged:'} ${relative(root, reportPath)}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** The lines only the committed report has (-) and only the generated one has (+). */
function lineDifference(committed, generated) {
  const count = (text) => text.split('\n').reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map());
  const a = count(committed);
  const b = count(generated);
  const only = (lines, other, sign) => [...lines].flatMap(([l, n]) => Array(Math.max(0, n - (other.get(l) ?? 0))).fill(`${sign} ${l}`));
  return [...only(a, b, '-'), ...only(b, a, '+')].join('\n');
}
