// The official TypeScript MCP SDK v2 (@modelcontextprotocol/client) as a
// client of `riot mcp`, for cmd/riot/mcp_ts_test.go. Usage:
//   node client_v2.mjs ERA RIOT_BINARY            (stdio)
//   node client_v2.mjs ERA - URL TOKEN            (Streamable HTTP)
// ERA is "legacy" (initialize, 2025-11-25) or a pinned revision such as
// 2026-07-28. $RIOT_TEST_MCP_SDK_V2 is the node_modules directory holding
// @modelcontextprotocol/client. riot wraps the test server as srv, with
// its shape, grow and multi-select ask tools. It asserts as it goes and
// prints one JSON line of facts.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.env.RIOT_TEST_MCP_SDK_V2;
if (!root) {
  console.error('set RIOT_TEST_MCP_SDK_V2 to the node_modules directory holding @modelcontextprotocol/client');
  process.exit(2);
}
const mod = (p) => import(pathToFileURL(path.join(root, '@modelcontextprotocol/client/dist', p)).href);
const { Client, StreamableHTTPClientTransport } = await mod('index.mjs');
const { StdioClientTransport } = await mod('stdio.mjs');

const [era, riot, url, token] = process.argv.slice(2);
const facts = {};
const textOf = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const opts = { capabilities: { elicitation: { form: {} } } };
if (era !== 'legacy') opts.versionNegotiation = { mode: { pin: era } };
const client = new Client({ name: 'riot-ts-v2-test', version: '1' }, opts);
const asked = [];
client.setRequestHandler('elicitation/create', async (req) => {
  asked.push(req.params.message);
  return { action: 'accept', content: { colors: ['red', 'blue'] } };
});
const transport = riot !== '-'
  ? new StdioClientTransport({ command: riot, args: ['mcp'], cwd: process.cwd(), env: process.env, stderr: 'inherit' })
  : new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
await client.connect(transport);
facts.protocol = client.getNegotiatedProtocolVersion();

let { tools } = await client.listTools();
const names = tools.map((t) => t.name);
assert.ok(names.length > 0, 'riot lists tools');
assert.deepEqual(names.slice(0, 3), ['Bash', 'BashOutput', 'KillShell'], 'the builtins first, in order');
const shape = tools.find((t) => t.name === 'mcp__srv__shape');
assert.ok(shape?.outputSchema, `the wrapped tool's output schema: ${JSON.stringify(shape)}`);

// Structured content, which this client checks against the output schema.
let res = await client.callTool({ name: 'mcp__srv__shape', arguments: { text: 'abcd' } });
assert.equal(res.isError ?? false, false, textOf(res));
assert.deepEqual(res.structuredContent, { length: 4 });
res = await client.callTool({ name: 'mcp__srv__echo', arguments: { text: 'hi' } });
assert.equal(textOf(res), 'echo: hi');

// A wrapped server's multi-select question, passed up and answered.
res = await client.callTool({ name: 'mcp__srv__ask', arguments: {} });
assert.equal(textOf(res), 'accept [red blue]', textOf(res));
assert.equal(asked.length, 1);
assert.match(asked[0], /Which color/);

// A tool the wrapped server adds: this client serves tools/list from its
// cache until riot's list_changed reaches it, which riot sends before the
// call's result; the Go test asserts the added tool; nothing may be
// reordered.
res = await client.callTool({ name: 'mcp__srv__grow', arguments: {} });
assert.equal(textOf(res), 'grown');
({ tools } = await client.listTools());
const after = tools.map((t) => t.name);
assert.deepEqual(after.slice(0, names.length), names, 'nothing reordered');
facts.added = after.slice(names.length);
await client.close();
console.log(JSON.stringify(facts));
