// Builds the Cosmo Router execution config scenarios/federation/cosmo/config.json from
// scenarios/federation/cosmo/compose.yaml (the four v2 subgraph SDL files) with
// `wgc router compose`, offline (no update check, no telemetry).
//
//   cd targets/cosmo-router && npm ci && node cosmo-config.mjs           # (re)write
//   node targets/cosmo-router/cosmo-config.mjs --check                    # exit 1 if stale
//
// The output is deterministic (same input, same bytes). Routing URLs in it are the
// placeholders 127.0.0.1:4201-4204; router.yaml overrides them per run.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cosmoDir = resolve(here, '..', '..', 'scenarios', 'federation', 'cosmo');
const input = join(cosmoDir, 'compose.yaml');
const out = join(cosmoDir, 'config.json');
const wgc = join(here, 'node_modules', 'wgc', 'dist', 'src', 'index.js');

const check = process.argv.includes('--check');
if (!existsSync(wgc)) {
  console.error(`cosmo-config: wgc is not installed; run: cd ${here} && npm ci`);
  process.exit(1);
}
const tmp = mkdtempSync(join(tmpdir(), 'gqlbench-cosmo-'));
const tmpOut = join(tmp, 'config.json');
const r = spawnSync(process.execPath, [wgc, 'router', 'compose', '-i', input, '-o', tmpOut], {
  cwd: cosmoDir,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, DISABLE_UPDATE_CHECK: 'true', COSMO_TELEMETRY_DISABLED: 'true', DO_NOT_TRACK: '1' },
});
if (r.status !== 0 || !existsSync(tmpOut)) {
  rmSync(tmp, { recursive: true, force: true });
  console.error(`cosmo-config: wgc router compose failed (exit ${r.status})`);
  process.exit(1);
}
const fresh = readFileSync(tmpOut, 'utf8');
if (check) {
  rmSync(tmp, { recursive: true, force: true });
  const current = existsSync(out) ? readFileSync(out, 'utf8') : null;
  if (current !== fresh) {
    console.error(`cosmo-config --check: ${out} is ${current === null ? 'missing' : 'stale'}; run: node targets/cosmo-router/cosmo-config.mjs`);
    process.exit(1);
  }
  console.log(`cosmo-config --check: ${out} is current (${fresh.length} bytes)`);
} else {
  writeFileSync(out, fresh);
  rmSync(tmp, { recursive: true, force: true });
  console.log(`cosmo-config: wrote ${out} (${fresh.length} bytes)`);
}
