// PouchDB 9.0.0 (in memory, under node) in live sync with fprint's gateway, for PouchDBLiveSyncTests.
// Usage: node pouchdb-live-sync.js LOAD_JS GATEWAY_DB_URL TOKEN EXPECTED_FROM_GATEWAY
// 1. writes three documents (one with an inline attachment), starts `sync({live, retry})`;
// 2. once the gateway has them, deletes one and prints {"event":"pushed"};
// 3. waits until EXPECTED_FROM_GATEWAY other documents arrived from the gateway (the test syncs them in
//    with fprint meanwhile), then prints {"event":"done", "docs": {id: rev}, "deleted": [...], "attachment": base64}.
// Every line on stdout is one JSON object; errors end the process with exit 1 and {"event":"error"}.
const [loader, url, token, expectedText] = process.argv.slice(2);
const expected = Number(expectedText);
const PouchDB = require(loader);
const say = (object) => process.stdout.write(JSON.stringify(object) + '\n');
const fail = (error) => { say({ event: 'error', message: String(error && (error.stack || error.message) || error) }); process.exit(1); };
process.on('unhandledRejection', fail);
// A guard against hanging only: the test's own bound is longer.
setTimeout(() => fail('timed out'), 600000).unref();

const local = new PouchDB('live', { adapter: 'memory' });
const remote = new PouchDB(url, {
  fetch: (resource, options) => {
    options.headers.set('Authorization', 'Bearer ' + token);
    return PouchDB.fetch(resource, options);
  },
});
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check) {
  for (;;) {
    if (await check()) return;
    await wait(200);
  }
}

(async () => {
  const note = Buffer.from('written by PouchDB '.repeat(20)).toString('base64');
  await local.bulkDocs([
    { _id: 'pouch-1', type: 'scan', tenth: 0.1, zeta: { z: 1, a: [3, 2] }, alpha: 'é', couchbase_sync_gateway_id: 'paula',
      _attachments: { 'note.txt': { content_type: 'text/plain', data: note } } },
    { _id: 'pouch-2', type: 'scan', level: 'J1NP', couchbase_sync_gateway_id: 'paula' },
    { _id: 'pouch-3', type: 'scan', level: 'J2NP', x: 12.5, couchbase_sync_gateway_id: 'paula' },
  ]);
  const sync = local.sync(remote, { live: true, retry: true });
  sync.on('error', fail);
  const onRemote = async (id) => { try { await remote.get(id); return true; } catch (e) { return false; } };
  await until(async () => (await onRemote('pouch-1')) && (await onRemote('pouch-2')) && (await onRemote('pouch-3')));
  const gone = await local.get('pouch-2');
  await local.remove(gone);
  await until(async () => !(await onRemote('pouch-2')));
  say({ event: 'pushed' });

  await until(async () => (await local.allDocs()).rows.filter((row) => !row.id.startsWith('pouch-')).length >= expected);
  const all = await local.allDocs();
  const docs = {};
  for (const row of all.rows) docs[row.id] = row.value.rev;
  const attachment = await local.getAttachment('pouch-1', 'note.txt');
  sync.cancel();
  say({ event: 'done', docs, deleted: ['pouch-2'], attachment: Buffer.from(await attachment.arrayBuffer()).toString('base64'), note });
  process.exit(0);
})().catch(fail);
