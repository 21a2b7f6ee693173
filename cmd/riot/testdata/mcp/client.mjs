// The official TypeScript MCP SDK as a client of `riot mcp`, for the Go
// tests in cmd/riot (mcp_ts_test.go). Usage:
//   node client.mjs MODE RIOT_BINARY [ARG...]
// with $RIOT_TEST_MCP_SDK the node_modules directory that holds
// @modelcontextprotocol/sdk. It asserts as it goes, exits non-zero with a
// message on the first failure, and prints one JSON line of facts for the
// Go test to check (such as pids that must be gone).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const sdkRoot = process.env.RIOT_TEST_MCP_SDK;
if (!sdkRoot) {
  console.error('set RIOT_TEST_MCP_SDK to the node_modules directory holding @modelcontextprotocol/sdk');
  process.exit(2);
}
const sdk = (p) => import(pathToFileURL(path.join(sdkRoot, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } = await sdk('types.js');

const [mode, riot, ...args] = process.argv.slice(2);
const facts = {};
const textOf = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const riotOrder = ['Bash', 'BashOutput', 'KillShell', 'Grep', 'Read', 'Diagnostics', 'Edit', 'Write', 'Glob'];

// startBlocking starts a call of a command that writes its pid to fifo and
// waits; it returns the pending call and the pid. If the call ends before
// the command starts, it unblocks its own FIFO reader (node cannot exit
// while a thread is blocked opening a FIFO) and fails.
async function startBlocking(client, fifo, signal) {
  const pending = client.callTool({ name: 'Bash', arguments: { command: `sleep 300 & echo $! > ${fifo}; wait` } }, undefined, { signal });
  const started = await Promise.race([
    readFile(fifo, 'utf8').then((pid) => ({ pid })),
    pending.then((r) => ({ early: textOf(r) }), (e) => ({ early: String(e) })),
  ]);
  if (!started.pid) {
    await writeFile(fifo, '\n');
    assert.fail(`the call ended before it started its command: ${started.early}`);
  }
  return { pending, pid: Number(started.pid.trim()) };
}

function stdioClient(extraArgs = [], capabilities = {}) {
  const transport = new StdioClientTransport({ command: riot, args: ['mcp', ...extraArgs], env: process.env, cwd: process.cwd(), stderr: 'inherit' });
  const client = new Client({ name: 'riot-ts-test', version: '1' }, { capabilities });
  return { client, transport };
}

// Every elicitation answer, in turn; the questions asked are recorded.
function answering(client, answers) {
  const asked = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return answers.shift() ?? { action: 'decline' };
  });
  return asked;
}

async function stdio() {
  const { client, transport } = stdioClient(['--allow', 'Bash(seq:*)'], { elicitation: {} });
  const answers = [];
  const asked = answering(client, answers);
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, 'riot');
  assert.ok(SUPPORTED_PROTOCOL_VERSIONS.includes(LATEST_PROTOCOL_VERSION));

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).slice(0, riotOrder.length), riotOrder, 'tools/list in riot order');
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.Read.annotations.readOnlyHint, true);
  assert.equal(byName.Read.annotations.openWorldHint, false);
  assert.equal(byName.Bash.annotations.readOnlyHint, false);
  assert.equal(byName.Bash.annotations.destructiveHint, true);
  assert.equal(byName.Read.inputSchema.additionalProperties, false);
  assert.ok(byName.Read.inputSchema.properties.file_path);

  let res = await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } });
  assert.equal(res.isError ?? false, false);
  assert.match(textOf(res), /1\talpha/);
  assert.equal(res.structuredContent, undefined, 'no structuredContent without an outputSchema');

  res = await client.callTool({ name: 'Read', arguments: { path: 'a.txt' } });
  assert.equal(res.isError, true);
  assert.match(textOf(res), /add the required field `file_path`/);

  res = await client.callTool({ name: 'Bash', arguments: { command: 'echo hi' } });
  assert.equal(res._meta['riot/ui'].exit_code, 0, 'the UI payload in _meta');

  // Elicitation: accept once, then decline.
  answers.push({ action: 'accept', content: { decision: 'allow once' } });
  res = await client.callTool({ name: 'Bash', arguments: { command: 'touch made-by-ts' } });
  assert.equal(res.isError ?? false, false, textOf(res));
  assert.match(asked[0], /touch made-by-ts/);
  answers.push({ action: 'decline' });
  res = await client.callTool({ name: 'Bash', arguments: { command: 'touch not-made' } });
  assert.equal(res.isError, true);
  assert.match(textOf(res), /The user denied permission for this call/);

  // Ten calls at once, each waiting at a barrier for all ten.
  const barrier = await Promise.all(Array.from({ length: 10 }, () =>
    client.callTool({ name: 'Barrier', arguments: { name: 'ts', n: 10, wait_ms: 20000 } })));
  for (const r of barrier) assert.equal(r.isError ?? false, false, textOf(r));

  // A spilled result links its whole output, which resources/read serves.
  res = await client.callTool({ name: 'Bash', arguments: { command: 'seq 1 30000' } });
  const link = res.content.find((c) => c.type === 'resource_link');
  assert.ok(link, 'a resource_link to the spilled result');
  assert.match(link.uri, /^riot:\/\/results\//);
  const full = await client.readResource({ uri: link.uri });
  assert.equal(full.contents[0].text.split('\n').length, 30001);
  await assert.rejects(client.readResource({ uri: 'riot://results/another-session/x' }));

  // Cancelling a request kills its process.
  const fifo = args[0];
  const ac = new AbortController();
  answers.push({ action: 'accept', content: { decision: 'allow once' } });
  const { pending, pid } = await startBlocking(client, fifo, ac.signal);
  facts.cancelledPid = pid;
  ac.abort('test');
  await assert.rejects(pending);
  res = await client.callTool({ name: 'Bash', arguments: { command: 'echo still serving' } });
  assert.match(textOf(res), /still serving/);
  await client.close();
}

// A call longer than the client's timeout (ARG 2 ms, else the SDK's 60 s
// default) completes, because riot's progress notifications reset it.
async function progress() {
  const { client, transport } = stdioClient(['--allow', 'Bash(sleep:*)']);
  await client.connect(transport);
  const seconds = Number(args[0]);
  const timeout = Number(args[1] ?? 60000);
  let notes = 0;
  const started = Date.now();
  const res = await client.callTool({ name: 'Bash', arguments: { command: `sleep ${seconds}` } }, undefined, {
    timeout, resetTimeoutOnProgress: true, onprogress: () => { notes++; },
  });
  assert.equal(res.isError ?? false, false, textOf(res));
  facts.seconds = (Date.now() - started) / 1000;
  facts.progress = notes;
  await client.close();
}

// Streamable HTTP with the bearer token; without it, no session.
async function http() {
  const [url, token] = args;
  const bad = new Client({ name: 'riot-ts-test', version: '1' });
  await assert.rejects(bad.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: 'Bearer wrong' } } })));
  const client = new Client({ name: 'riot-ts-test', version: '1' }, { capabilities: { elicitation: {} } });
  const answers = [{ action: 'decline' }];
  const asked = answering(client, answers);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), riotOrder);
  let res = await client.callTool({ name: 'Read', arguments: { file_path: 'a.txt' } });
  assert.match(textOf(res), /1\talpha/);
  res = await client.callTool({ name: 'Bash', arguments: { command: 'touch over-http' } });
  assert.equal(res.isError, true, 'the permission chain holds over HTTP');
  assert.match(textOf(res), /The user denied permission for this call/);
  assert.match(asked[0], /touch over-http/, 'asked through elicitation over HTTP');
  // Progress reaches the client over HTTP too.
  let notes = 0;
  res = await client.callTool({ name: 'Bash', arguments: { command: 'sleep 2; echo slept' } }, undefined, { onprogress: () => { notes++; } });
  assert.match(textOf(res), /slept/);
  assert.ok(notes >= 1, `${notes} progress notifications in a 2 s call`);
  // Cancelling a request over HTTP kills its process.
  const fifo = args[2];
  answers.push({ action: 'accept', content: { decision: 'allow once' } });
  const ac = new AbortController();
  const { pending, pid } = await startBlocking(client, fifo, ac.signal);
  facts.cancelledPid = pid;
  ac.abort('test');
  await assert.rejects(pending);
  await client.close();
}

const modes = { stdio, progress, http };
if (!modes[mode]) {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
try {
  await modes[mode]();
  console.log(JSON.stringify(facts));
  process.exit(0);
} catch (err) {
  console.error(err?.stack ?? String(err));
  process.exit(1);
}
