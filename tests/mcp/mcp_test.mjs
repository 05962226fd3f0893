// Drives `agenttask mcp` end to end with the official MCP TypeScript SDK
// client (@modelcontextprotocol/sdk, pinned in package-lock.json): every
// tool, then what an attacker or a broken client sends. The SDK checks each
// result's structuredContent against the tool's outputSchema, so a result
// that does not match its schema fails the test too.
//
// AGENTTASK names the binary; the repository is made in a fresh temporary
// directory; git (the command line) is the oracle.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const AGENTTASK = process.env.AGENTTASK;
assert.ok(AGENTTASK, 'AGENTTASK must name the agenttask binary');
const env = { PATH: process.env.PATH, HOME: process.env.HOME || '/tmp',
	ASAN_OPTIONS: process.env.ASAN_OPTIONS || '', UBSAN_OPTIONS: process.env.UBSAN_OPTIONS || '' };

const top = mkdtempSync(join(tmpdir(), 'agenttask-mcp.'));
const repo = join(top, 'repo');
const git = (...args) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
execFileSync('git', ['init', '-q', '-b', 'main', repo]);
git('config', 'user.email', 't@example.com');
git('config', 'user.name', 'T');
writeFileSync(join(repo, 'README'), 'one\ntwo\nthree\n');
writeFileSync(join(repo, '.gitignore'), 'ignored.txt\nbuild/\n');
git('add', '.');
git('commit', '-qm', 'init');
const mainTip = git('rev-parse', 'main').trim();
// The sleeps a test looks for with pgrep are this run's own (another run may go on at once).
const tag = String(process.pid);

let failures = 0;
async function check(name, fn) {
	try {
		await fn();
		console.log(`ok - ${name}`);
	} catch (e) {
		failures++;
		console.log(`not ok - ${name}\n  ${(e && e.stack || String(e)).split('\n').join('\n  ')}`);
	}
}

async function connect(extra = [], moreEnv = {}) {
	const transport = new StdioClientTransport({
		command: AGENTTASK, args: ['-C', repo, 'mcp', ...extra], env: { ...env, ...moreEnv },
		stderr: 'inherit',
	});
	const client = new Client({ name: 'agenttask-test', version: '1.0.0' });
	await client.connect(transport);
	return client;
}

const call = (client, name, args, opts) => client.callTool({ name, arguments: args }, undefined, opts);
// A tool's failure: isError, and its text is {"error": {code, message}}.
async function refused(client, name, args, code, pattern) {
	const r = await call(client, name, args);
	assert.equal(r.isError, true, `${name} ${JSON.stringify(args).slice(0, 200)} was not refused`);
	const e = JSON.parse(r.content[0].text).error;
	if (code)
		assert.equal(e.code, code, e.message);
	if (pattern)
		assert.match(e.message, pattern);
	return e;
}

const client = await connect();
let wt;

await check('the lifecycle: protocol revision, server info, instructions', async () => {
	assert.equal(LATEST_PROTOCOL_VERSION, '2025-11-25');
	assert.equal(client.getServerVersion().name, 'agenttask');
	assert.match(client.getInstructions(), /One task per change/);
	assert.match(client.getInstructions(), /through run/);
	assert.ok(client.getServerCapabilities().tools);
	await client.ping();
});

await check('tools/list: the table, with schemas, and no accept or discard', async () => {
	const { tools } = await client.listTools();
	const names = tools.map(t => t.name).sort();
	assert.deepEqual(names, ['checkpoints', 'commit', 'delete_file', 'diff', 'edit_file',
		'list_files', 'read_file', 'review_comments', 'rewind', 'run', 'task_list', 'task_new',
		'task_status',
		'write_file']);
	for (const t of tools) {
		assert.equal(t.inputSchema.type, 'object', t.name);
		assert.equal(t.outputSchema.type, 'object', t.name);
		assert.ok(t.description.length > 20, t.name);
	}
});

await check('task_new, task_list, task_status', async () => {
	const r = await call(client, 'task_new', { task: 't1' });
	assert.equal(r.isError, false);
	assert.equal(r.structuredContent.name, 't1');
	assert.equal(r.structuredContent.base_commit, mainTip);
	wt = r.structuredContent.path;
	assert.equal(git('rev-parse', 'agenttask/t1').trim(), mainTip);
	const l = await call(client, 'task_list', {});
	assert.deepEqual(l.structuredContent.tasks.map(t => t.name), ['t1']);
	const s = await call(client, 'task_status', { task: 't1' });
	assert.equal(s.structuredContent.dirty, false);
	await refused(client, 'task_new', { task: 't1' }, 'exists');
	await refused(client, 'task_status', { task: 'nosuch' }, 'not-found');
});

await check('write_file, read_file with offset and limit, edit_file, delete_file', async () => {
	let r = await call(client, 'write_file', { task: 't1', path: 'src/a.txt', content: 'l1\nl2\nl3\nl4\n' });
	assert.equal(r.structuredContent.existed, false);
	assert.equal(readFileSync(join(wt, 'src/a.txt'), 'utf8'), 'l1\nl2\nl3\nl4\n');
	r = await call(client, 'read_file', { task: 't1', path: 'src/a.txt', offset: 2, limit: 2 });
	assert.equal(r.structuredContent.content, 'l2\nl3\n');
	assert.equal(r.structuredContent.total_lines, 4);
	assert.equal(r.structuredContent.truncated, true);
	r = await call(client, 'edit_file', { task: 't1', path: 'src/a.txt', old_string: 'l3', new_string: 'L3' });
	assert.equal(r.isError, false);
	assert.equal(readFileSync(join(wt, 'src/a.txt'), 'utf8'), 'l1\nl2\nL3\nl4\n');
	// Not unique, not there: refused, the file unchanged.
	await refused(client, 'edit_file', { task: 't1', path: 'src/a.txt', old_string: 'l', new_string: 'x' },
		'usage', /more than once/);
	await refused(client, 'edit_file', { task: 't1', path: 'src/a.txt', old_string: 'zz', new_string: 'x' },
		'not-found');
	assert.equal(readFileSync(join(wt, 'src/a.txt'), 'utf8'), 'l1\nl2\nL3\nl4\n');
	// Bytes that are not text: base64 both ways.
	const bin = Buffer.from([0, 1, 0xff, 0xfe, 10]);
	await call(client, 'write_file', { task: 't1', path: 'bin.dat', content_base64: bin.toString('base64') });
	assert.deepEqual(readFileSync(join(wt, 'bin.dat')), bin);
	r = await call(client, 'read_file', { task: 't1', path: 'bin.dat' });
	assert.deepEqual(Buffer.from(r.structuredContent.content_base64, 'base64'), bin);
	r = await call(client, 'delete_file', { task: 't1', path: 'bin.dat' });
	assert.equal(existsSync(join(wt, 'bin.dat')), false);
	await refused(client, 'delete_file', { task: 't1', path: 'src' }, 'usage', /directory/);
});

await check('list_files respects .gitignore', async () => {
	await call(client, 'write_file', { task: 't1', path: 'ignored.txt', content: 'x' });
	await call(client, 'write_file', { task: 't1', path: 'build/out.o', content: 'x' });
	const r = await call(client, 'list_files', { task: 't1' });
	assert.deepEqual(r.structuredContent.files.sort(), ['.gitignore', 'README', 'src/a.txt']);
	const sub = await call(client, 'list_files', { task: 't1', path: 'src' });
	assert.deepEqual(sub.structuredContent.files, ['src/a.txt']);
});

await check('run: a shell line, argv, exit codes, cwd, reason, resource use', async () => {
	let r = await call(client, 'run', { task: 't1', command: 'echo out; echo err >&2; exit 3' });
	let s = r.structuredContent;
	assert.equal(r.isError, false);
	assert.equal(s.exit_code, 3);
	assert.equal(s.reason, 'exit');
	assert.equal(s.stdout, 'out\n');
	assert.equal(s.stderr, 'err\n');
	assert.match(s.output, /out\n/);
	assert.match(s.output, /err\n/);
	assert.ok(s.max_rss_kb > 0);
	r = await call(client, 'run', { task: 't1', argv: ['cat', 'a.txt'], cwd: 'src' });
	assert.equal(r.structuredContent.stdout, 'l1\nl2\nL3\nl4\n');
	// Written in the sandbox, seen by the tools: the same worktree.
	await call(client, 'run', { task: 't1', command: 'echo made > src/made.txt' });
	r = await call(client, 'read_file', { task: 't1', path: 'src/made.txt' });
	assert.equal(r.structuredContent.content, 'made\n');
	r = await call(client, 'run', { task: 't1', command: 'sleep 5', timeout: 1 });
	assert.equal(r.structuredContent.reason, 'timeout');
	assert.equal(r.structuredContent.exit_code, 124);
	r = await call(client, 'run', { task: 't1', command: 'kill -9 $$' });
	assert.equal(r.structuredContent.reason, 'signal');
});

await check('run: NUL and invalid UTF-8 are kept, long output keeps head and tail', async () => {
	let r = await call(client, 'run', { task: 't1', command: "printf 'a\\000b\\377c'" });
	let s = r.structuredContent;
	assert.equal(s.stdout, 'a\u0000b\ufffdc');
	assert.deepEqual(Buffer.from(s.stdout_base64, 'base64'), Buffer.from([0x61, 0, 0x62, 0xff, 0x63]));
	r = await call(client, 'run', { task: 't1', command: 'seq 1 100000; echo SUMMARY', output_max: 1000 });
	s = r.structuredContent;
	assert.equal(s.stdout_truncated, true);
	assert.ok(s.stdout.startsWith('1\n2\n3\n'));
	assert.ok(s.stdout.endsWith('100000\nSUMMARY\n'));
	assert.match(s.stdout, /\[agenttask: \d+ bytes dropped\]/);
	const total = execFileSync('sh', ['-c', 'seq 1 100000; echo SUMMARY']).length;
	const marker = s.stdout.match(/\n\[agenttask: \d+ bytes dropped\]\n/)[0];
	assert.equal(Buffer.byteLength(s.stdout) - marker.length + s.stdout_dropped, total);
});

await check('run: progress notifications during a long command', async () => {
	const seen = [];
	const r = await call(client, 'run', { task: 't1', command: 'sleep 2.5; echo done' },
		{ onprogress: p => seen.push(p) });
	assert.equal(r.structuredContent.stdout, 'done\n');
	assert.ok(seen.length >= 1, `no progress notification (${seen.length})`);
	assert.match(seen[0].message, /running/);
});

await check('run: notifications/cancelled kills the run, nothing is left behind', async () => {
	// What must happen: the command's whole tree is killed at once, its next
	// step never runs, and the task takes the next run as if nothing happened.
	const ac = new AbortController();
	const p = call(client, 'run', { task: 't1', command: `sleep 31.${tag}; touch cancelled-survived` },
		{ signal: ac.signal });
	await new Promise(res => setTimeout(res, 1200));
	ac.abort('test');
	await assert.rejects(p);
	await new Promise(res => setTimeout(res, 1000));
	assert.equal(spawnSyncOut('pgrep', ['-f', `sleep 31.${tag}`]), '', 'the sleep survived the cancellation');
	const r = await call(client, 'run', { task: 't1', command: 'echo again' });
	assert.equal(r.structuredContent.stdout, 'again\n');
	assert.equal(existsSync(join(wt, 'cancelled-survived')), false);
});

await check('diff and commit', async () => {
	let r = await call(client, 'diff', { task: 't1' });
	let s = r.structuredContent;
	assert.match(s.patch, /\+L3/);
	assert.match(s.stat, /src\/a\.txt/);
	assert.ok(s.files.some(f => f.path === 'src/a.txt'));
	assert.equal(s.merge_base, mainTip, 'compared with the merge base');
	r = await call(client, 'commit', { task: 't1', message: 'the change' });
	assert.equal(r.structuredContent.made, true);
	assert.equal(git('rev-parse', 'agenttask/t1').trim(), r.structuredContent.commit);
	assert.equal(git('log', '-1', '--format=%s', 'agenttask/t1').trim(), 'the change');
	assert.equal(git('show', 'agenttask/t1:src/a.txt'), 'l1\nl2\nL3\nl4\n');
	// Ignored files were not committed.
	assert.throws(() => execFileSync('git', ['-C', repo, 'show', 'agenttask/t1:ignored.txt'], { stdio: 'ignore' }));
	r = await call(client, 'commit', { task: 't1' });
	assert.equal(r.structuredContent.made, false);
});

await check('review_comments: the person\'s open comments, carried to the agent\'s edits', async () => {
	// What: the person comments on a line of the task (the CLI); the agent
	// asks for the comments, edits above the line, asks again, and cannot
	// resolve one itself. Must: the open comments, the line carried from 3
	// to 4, the same list inside its sandbox; only the person resolves.
	execFileSync(AGENTTASK, ['-C', repo, 'comment', 't1', 'src/a.txt:3', 'why upper case?'], { env });
	let r = await call(client, 'review_comments', { task: 't1' });
	assert.equal(r.isError, false, r.content[0].text);
	let s = r.structuredContent;
	assert.equal(s.open, 1);
	assert.deepEqual([s.comments[0].path, s.comments[0].line, s.comments[0].text, s.comments[0].outdated],
		['src/a.txt', 3, 'why upper case?', false]);
	await call(client, 'write_file', { task: 't1', path: 'src/a.txt', content: 'l0\nl1\nl2\nL3\nl4\n' });
	s = (await call(client, 'review_comments', { task: 't1' })).structuredContent;
	assert.equal(s.comments[0].line, 4, 'carried below the inserted line');
	assert.equal(s.comments[0].made_on.line, 3);
	r = await call(client, 'run', { task: 't1', command: 'cat "$AGENTTASK_COMMENTS"' });
	if (r.structuredContent.exit_code === 0)   /* a sandbox: where user namespaces work */
		assert.equal(JSON.parse(r.structuredContent.stdout)[0].line, 4);
	await refused(client, 'review_comments', { task: 'nosuch' }, 'not-found');
	execFileSync(AGENTTASK, ['-C', repo, 'comment', 't1', '--resolve', '1'], { env });
	s = (await call(client, 'review_comments', { task: 't1' })).structuredContent;
	assert.deepEqual([s.open, s.comments], [0, []]);
	await call(client, 'write_file', { task: 't1', path: 'src/a.txt', content: 'l1\nl2\nL3\nl4\n' });
});

await check('checkpoints and rewind: each run numbered, what it changed, undone', async () => {
	// What: an agent lists what each run changed and rewinds one (a shell
	// command's edits, not the edit tool's). Must: run gives its number and
	// files, checkpoints lists them, rewind brings the file back and undoes.
	let r = await call(client, 'run', { task: 't1', command: 'echo rewound > src/a.txt; rm README' });
	const n = r.structuredContent.number;
	assert.ok(Number.isInteger(n) && n >= 1, `run number ${n}`);
	assert.deepEqual(r.structuredContent.files.map(f => f.path), ['README', 'src/a.txt']);
	r = await call(client, 'checkpoints', { task: 't1' });
	const run = r.structuredContent.runs.find(x => x.number === n);
	assert.deepEqual(run.files.map(f => [f.path, f.status]), [['README', 'deleted'], ['src/a.txt', 'modified']]);
	r = await call(client, 'rewind', { task: 't1', to: n });
	assert.equal(r.isError, false, JSON.stringify(r.content));
	assert.equal(readFileSync(join(wt, 'src/a.txt'), 'utf8'), 'l1\nl2\nL3\nl4\n');
	assert.equal(readFileSync(join(wt, 'README'), 'utf8'), 'one\ntwo\nthree\n');
	assert.equal(git('-C', wt, 'status', '--porcelain'), '');
	const saved = r.structuredContent.saved;
	r = await call(client, 'rewind', { task: 't1', to: saved });
	assert.equal(readFileSync(join(wt, 'src/a.txt'), 'utf8'), 'rewound\n');
	r = await call(client, 'rewind', { task: 't1', to: saved });   // back where it was: nothing to write
	await refused(client, 'rewind', { task: 't1', to: 999 }, 'usage', /no checkpoint 999/);
	await refused(client, 'rewind', { task: 't1' }, 'usage');
	await call(client, 'rewind', { task: 't1', to: n });   // as the later checks expect it
});

await check('bad input: an unknown tool, invalid arguments', async () => {
	await assert.rejects(call(client, 'no_such_tool', {}), /unknown tool/);
	await assert.rejects(call(client, 'accept', { task: 't1' }), /unknown tool/);
	await refused(client, 'read_file', { task: 't1' }, 'usage', /missing argument 'path'/);
	await refused(client, 'read_file', { task: 't1', path: 5 }, 'usage', /'path' must be a string/);
	await refused(client, 'read_file', { task: 't1', path: 'README', bogus: 1 }, 'usage', /unknown argument/);
	await refused(client, 'read_file', { task: 't1', path: 'README', offset: -1 }, 'usage');
	await refused(client, 'run', { task: 't1' }, 'usage', /command/);
	await refused(client, 'run', { task: 't1', command: 'true', argv: ['true'] }, 'usage');
	await refused(client, 'run', { task: 't1', command: 'pwd', cwd: '../..' }, 'usage');
});

await check('path escapes: .., absolute paths, .git, a planted symbolic link', async () => {
	// The attacker names paths outside the worktree, or plants a link to
	// one: every read, write, edit and delete is refused, nothing outside
	// changes, and nothing in .git is reachable.
	const outside = join(top, 'outside.txt');
	writeFileSync(outside, 'secret\n');
	for (const path of ['../outside.txt', '../../../../../../etc/passwd', outside, '/etc/passwd',
		'.git', '.git/config', 'src/../../outside.txt', '.GIT/HEAD'])
		await refused(client, 'read_file', { task: 't1', path });
	await refused(client, 'write_file', { task: 't1', path: '../outside.txt', content: 'pwned' });
	await refused(client, 'write_file', { task: 't1', path: '.git/hooks/pre-commit', content: 'pwned' });
	symlinkSync(top, join(wt, 'link'));
	symlinkSync(outside, join(wt, 'filelink'));
	await refused(client, 'read_file', { task: 't1', path: 'link/outside.txt' }, 'unsafe');
	await refused(client, 'read_file', { task: 't1', path: 'filelink' }, 'unsafe');
	await refused(client, 'write_file', { task: 't1', path: 'link/outside.txt', content: 'pwned' }, 'unsafe');
	await refused(client, 'write_file', { task: 't1', path: 'filelink', content: 'pwned' }, 'unsafe');
	await refused(client, 'write_file', { task: 't1', path: 'link/new/deeper.txt', content: 'x' }, 'unsafe');
	await refused(client, 'edit_file', { task: 't1', path: 'filelink', old_string: 'secret', new_string: 'x' });
	await refused(client, 'delete_file', { task: 't1', path: 'link/outside.txt' }, 'unsafe');
	await refused(client, 'list_files', { task: 't1', path: '../' }, 'usage');
	assert.equal(readFileSync(outside, 'utf8'), 'secret\n');
	assert.equal(existsSync(join(top, 'new')), false);
	// A link itself may be deleted: that reaches nothing outside.
	await call(client, 'delete_file', { task: 't1', path: 'filelink' });
	assert.equal(readFileSync(outside, 'utf8'), 'secret\n');
	rmSync(join(wt, 'link'));
	// An absolute path inside the worktree is the same as a relative one.
	const r = await call(client, 'read_file', { task: 't1', path: join(wt, 'README') });
	assert.equal(r.structuredContent.content, 'one\ntwo\nthree\n');
});

await check('a huge write is refused, and nothing is written', async () => {
	const big = 'x'.repeat(9 << 20);
	await refused(client, 'write_file', { task: 't1', path: 'big.txt', content: big }, 'usage', /more than/);
	assert.equal(existsSync(join(wt, 'big.txt')), false);
	// The server is still there.
	const r = await call(client, 'read_file', { task: 't1', path: 'README' });
	assert.equal(r.isError, false);
});

await check('run: allow_hosts only names hosts the person allows, exactly', async () => {
	// What: a prompt-injected agent asks the run tool for a host of its
	// choosing (a public name, an address, a spelling of an allowed one), so
	// that the proxy lets the command send what it read there. Must: refused
	// before anything runs, naming the host; what the person allows
	// (agenttask mcp --allow-host, config.json's run.allow_hosts) is granted.
	const xdg = join(top, 'xdg');
	mkdirSync(join(xdg, 'agenttask'), { recursive: true });
	writeFileSync(join(xdg, 'agenttask', 'config.json'), '{"run": {"allow_hosts": ["crates.io"]}}');
	const c = await connect(['--task', 't1', '--allow-host', 'pypi.org', '--allow-host', '*.npmjs.org'],
		{ XDG_CONFIG_HOME: xdg });
	for (const host of ['evil.example', '169.254.169.254', '10.0.0.1', 'PyPI.org', 'pypi.org:8080',
		'files.pypi.org', 'registry.npmjs.org', '*', '*.org', 'pypi.org.'])
		await refused(c, 'run', { command: 'touch host-ran', allow_hosts: [host] }, 'usage',
			new RegExp(`host '${host.replace(/[.*]/g, m => '\\' + m)}' is not one the person allows`));
	await refused(c, 'run', { command: 'touch host-ran', allow_hosts: ['pypi.org', 'evil.example'] },
		'usage', /'evil\.example'/);
	assert.equal(existsSync(join(wt, 'host-ran')), false, 'a refused run ran');
	for (const hosts of [['pypi.org'], ['*.npmjs.org'], ['crates.io'], ['pypi.org', 'crates.io']]) {
		const r = await call(c, 'run', { command: 'echo "$http_proxy"', allow_hosts: hosts });
		assert.equal(r.isError, false, r.content[0].text);
		assert.match(r.structuredContent.stdout, /127\.0\.0\.1:3128/, `the proxy for ${hosts}`);
	}
	await c.close();
	// Without --allow-host and config, nothing may be asked for.
	await refused(client, 'run', { task: 't1', command: 'true', allow_hosts: ['pypi.org'] }, 'usage',
		/'pypi\.org'/);
});

await check('task_new runs the person\'s setup in the new task, as new does', async () => {
	// The person's config.json names the setup; the agent's task_new runs it in
	// the task's sandbox and says how it went (a failed one keeps the task).
	const xdg = join(top, 'xdg-setup');
	mkdirSync(join(xdg, 'agenttask'), { recursive: true });
	writeFileSync(join(xdg, 'agenttask', 'config.json'),
		'{"setup": [["sh", "-c", "echo ready >setup.txt"], ["sh", "-c", "exit 3"]]}');
	const c = await connect([], { XDG_CONFIG_HOME: xdg });
	const r = await call(c, 'task_new', { task: 'with-setup' });
	assert.equal(r.isError, false, r.content[0].text);
	assert.equal(r.structuredContent.setup.state, 'failed');
	assert.equal(r.structuredContent.setup.done, 1);
	assert.equal(r.structuredContent.setup.exit_code, 3);
	const f = await call(c, 'read_file', { task: 'with-setup', path: 'setup.txt' });
	assert.equal(f.isError, false, f.content[0].text);
	assert.match(f.structuredContent.content, /^ready/);
	await c.close();
	// Without a setup, none is said.
	const c2 = await connect();
	const n = await call(c2, 'task_new', { task: 'no-setup' });
	assert.equal(n.isError, false);
	assert.equal(n.structuredContent.setup, undefined);
	await c2.close();
	for (const t of ['with-setup', 'no-setup'])
		execFileSync(AGENTTASK, ['-C', repo, 'discard', '--force', t], { env, stdio: 'ignore' });
});

await check('run: an agent cannot add secrets; the person\'s reach it only as placeholders', async () => {
	// What: a prompt-injected agent asks the run tool for a secret (to have the proxy send
	// the person's key where it likes), or reads the one the person's config.json gives.
	// Must: no argument adds a secret, a host or a rule; inside, the variable holds a
	// placeholder shaped like the value, never the value.
	const xdg = join(top, 'xdg-secrets');
	const value = 'sk-mcpsecret-0123456789abcdefXYZ';
	mkdirSync(join(xdg, 'agenttask'), { recursive: true });
	writeFileSync(join(xdg, 'agenttask', 'config.json'),
		'{"secrets": {"MCP_KEY": {"hosts": ["pypi.org"]}}}');
	const c = await connect(['--task', 't1', '--allow-host', 'pypi.org'],
		{ XDG_CONFIG_HOME: xdg, MCP_KEY: value });
	for (const arg of ['secrets', 'secret', 'requests', 'pass_env'])
		await refused(c, 'run', { command: 'true', [arg]: ['MCP_KEY'] }, 'usage',
			new RegExp(`unknown argument '${arg}'`));
	const r = await call(c, 'run', { command: 'printf "%s" "$MCP_KEY"', allow_hosts: ['pypi.org'] });
	assert.equal(r.isError, false, r.content[0].text);
	const ph = r.structuredContent.stdout;
	assert.equal(ph.length, value.length, 'the placeholder has the value\'s length');
	assert.equal(ph.slice(0, 3), value.slice(0, 3), 'and its first three bytes');
	assert.notEqual(ph, value, 'never the value');
	assert.ok(!JSON.stringify(r).includes(value), 'the value is nowhere in the result');
	// Without the host allowed, the secret is not even loaded.
	const r2 = await call(c, 'run', { command: 'printf "[%s]" "$MCP_KEY"' });
	assert.equal(r2.structuredContent.stdout, '[]');
	await c.close();
});

await check('a server reaches only the tasks its session made, or the one --task names', async () => {
	// What: an agent on a second server (or a client sharing one machine)
	// names a task it did not make (another session's, the person's own)
	// to read its files, run in it, commit or diff it. Must: refused,
	// naming the task, nothing read or changed; task_list shows none of them.
	execFileSync(AGENTTASK, ['-C', repo, 'new', 'mine'], { env });
	const mine = execFileSync(AGENTTASK, ['-C', repo, 'path', 'mine'], { encoding: 'utf8', env }).trim();
	writeFileSync(join(mine, 'secret.txt'), 'the person\'s\n');
	const c = await connect();
	assert.deepEqual((await call(c, 'task_list', {})).structuredContent.tasks, []);
	for (const task of ['t1', 'mine']) {
		await refused(c, 'task_status', { task }, 'usage', new RegExp(`task '${task}' is out of this server's reach`));
		await refused(c, 'read_file', { task, path: 'secret.txt' }, 'usage', /out of this server's reach/);
		await refused(c, 'write_file', { task, path: 'planted.txt', content: 'x' }, 'usage', /out of this server's reach/);
		await refused(c, 'edit_file', { task, path: 'README', old_string: 'one', new_string: 'x' }, 'usage');
		await refused(c, 'delete_file', { task, path: 'README' }, 'usage');
		await refused(c, 'list_files', { task }, 'usage');
		await refused(c, 'run', { task, command: 'touch planted.txt' }, 'usage');
		await refused(c, 'diff', { task }, 'usage');
		await refused(c, 'commit', { task, message: 'x' }, 'usage');
		await refused(c, 'review_comments', { task }, 'usage', /out of this server's reach/);
	}
	await refused(c, 'read_file', { path: 'README' }, 'usage', /missing argument 'task'/);
	assert.equal(existsSync(join(mine, 'planted.txt')), false);
	assert.equal(existsSync(join(wt, 'planted.txt')), false);
	assert.equal(readFileSync(join(mine, 'README'), 'utf8'), 'one\ntwo\nthree\n');
	// Its own task it reaches, and lists alone.
	assert.equal((await call(c, 'task_new', { task: 'own' })).isError, false);
	assert.deepEqual((await call(c, 'task_list', {})).structuredContent.tasks.map(t => t.name), ['own']);
	assert.equal((await call(c, 'write_file', { task: 'own', path: 'x.txt', content: 'x' })).isError, false);
	assert.equal((await call(c, 'commit', { task: 'own', message: 'the agent\'s' })).structuredContent.made, true);
	// A task's branch is no base for an agent's task: its .agenttask/ would shape the new one.
	await refused(c, 'task_new', { task: 'from-own', base: 'agenttask/own' }, 'usage', /on none of your branches/);
	await refused(c, 'task_new', { task: 'from-t1', base: 'agenttask/t1' }, 'usage', /on none of your branches/);
	assert.equal((await call(c, 'task_new', { task: 'from-main', base: 'main' })).isError, false);
	await c.close();
	// --task: that task only; no new one; a task left out is that one.
	const one = await connect(['--task', 'mine']);
	assert.deepEqual((await call(one, 'task_list', {})).structuredContent.tasks.map(t => t.name), ['mine']);
	let r = await call(one, 'read_file', { path: 'secret.txt' });
	assert.equal(r.structuredContent.content, 'the person\'s\n');
	await refused(one, 'read_file', { task: 't1', path: 'README' }, 'usage', /serves task 'mine' only/);
	await refused(one, 'task_new', { task: 'more' }, 'usage', /serves task 'mine' only/);
	await one.close();
	await assert.rejects(connect(['--task', 'nosuch']));
	for (const t of ['mine', 'own', 'from-main'])
		execFileSync(AGENTTASK, ['-C', repo, 'discard', '--force', t], { env, stdio: 'ignore' });
});

await check('the file tools leave an entry in the task\'s log', async () => {
	// What: an agent changes files through the tools, which no run records.
	// Must: each write, edit and delete is in the task's log (agenttask
	// log), with its path (controls escaped) and its size.
	await call(client, 'write_file', { task: 't1', path: 'logged.txt', content: 'hello\n' });
	await call(client, 'edit_file', { task: 't1', path: 'logged.txt', old_string: 'hello', new_string: 'bye' });
	await call(client, 'write_file', { task: 't1', path: 'esc\u001b[31m.txt', content: 'x' });
	await call(client, 'delete_file', { task: 't1', path: 'logged.txt' });
	await call(client, 'delete_file', { task: 't1', path: 'esc\u001b[31m.txt' });
	const log = JSON.parse(execFileSync(AGENTTASK, ['-C', repo, 'log', 't1', '--json'], { encoding: 'utf8', env }));
	const files = log.filter(e => e.event === 'file').slice(-5).map(e => [e.op, e.path, e.bytes]);
	assert.deepEqual(files, [['write', 'logged.txt', 6], ['edit', 'logged.txt', 4],
		['write', 'esc\u001b[31m.txt', 1], ['delete', 'logged.txt', 0], ['delete', 'esc\u001b[31m.txt', 0]]);
	const text = execFileSync(AGENTTASK, ['-C', repo, 'log', 't1'], { encoding: 'utf8', env });
	assert.match(text, /file +op=write path=logged\.txt bytes=6 created=true/);
	assert.match(text, /path=esc\\x1b\[31m\.txt/);
	assert.ok(!text.includes('\u001b'), 'a control reached the reader raw');
});

await client.close();

// ---- a raw client: malformed JSON-RPC, and a disconnect mid-run ----

function spawnSyncOut(cmd, args) {
	try {
		return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
	} catch {
		return '';
	}
}

function raw(extra = []) {
	const p = spawn(AGENTTASK, ['-C', repo, 'mcp', ...extra], { env, stdio: ['pipe', 'pipe', 'inherit'] });
	let buf = '';
	const waiting = [];
	const msgs = [];
	p.stdout.on('data', d => {
		buf += d;
		let i;
		while ((i = buf.indexOf('\n')) >= 0) {
			msgs.push(JSON.parse(buf.slice(0, i)));   // every line the server sends is JSON
			buf = buf.slice(i + 1);
			waiting.splice(0).forEach(f => f());
		}
	});
	const exited = new Promise(res => p.on('exit', (code, sig) => res({ code, sig })));
	return {
		p, exited, msgs,
		send: line => p.stdin.write(line + '\n'),
		async next() {
			while (!msgs.length)
				await new Promise(res => waiting.push(res));
			return msgs.shift();
		},
	};
}

const init = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
	params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

await check('malformed JSON-RPC gets JSON-RPC errors, and the server goes on', async () => {
	const c = raw(['--task', 't1']);
	c.send(init);
	assert.equal((await c.next()).result.protocolVersion, '2025-11-25');
	c.send('{"jsonrpc": "2.0", "id": 1, "method": ');
	let m = await c.next();
	assert.equal(m.error.code, -32700);
	assert.equal(m.id, null);
	c.send('[{"jsonrpc":"2.0","id":2,"method":"ping"}]');
	assert.equal((await c.next()).error.code, -32600);
	c.send('{"jsonrpc":"1.0","id":3,"method":"ping"}');
	m = await c.next();
	assert.equal(m.error.code, -32600);
	assert.equal(m.id, 3);
	c.send('{"jsonrpc":"2.0","id":4,"method":"no/such"}');
	assert.equal((await c.next()).error.code, -32601);
	c.send('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"read_file","arguments":"x"}}');
	m = await c.next();
	assert.equal(m.result.isError, true);
	c.send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_file","arguments":{"task":"t1","path":"n.txt","content":"a\\u0000b"}}}');
	m = await c.next();
	assert.equal(m.error.code, -32602);
	assert.equal(existsSync(join(wt, 'n.txt')), false);
	// What: a key given twice, so that a filter in front (which takes the
	// last) sees another call than the server. Must: the message refused
	// (-32700, naming the key), nothing done, at any depth.
	for (const [id, dup] of [[30, '"name":"write_file","name":"read_file"'],
		[31, '"name":"write_file","arguments":{"task":"t1","path":"dup.txt","content":"a","content":"b"}'],
		[32, '"name":"write_file","arguments":{"task":"t1","path":"dup.txt","path":"dup2.txt","content":"a"}']]) {
		c.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${dup}${id === 30 ? ',"arguments":{"task":"t1","path":"dup.txt","content":"a"}' : ''}}}`);
		m = await c.next();
		assert.equal(m.error.code, -32700, JSON.stringify(m));
		assert.equal(m.id, null);
		assert.match(m.error.message, /duplicate key '(params\.name|params\.arguments\.(content|path))'/);
	}
	c.send('{"jsonrpc":"2.0","id":33,"id":34,"method":"ping"}');
	assert.match((await c.next()).error.message, /duplicate key 'id'/);
	assert.equal(existsSync(join(wt, 'dup.txt')), false);
	assert.equal(existsSync(join(wt, 'dup2.txt')), false);
	// A message over the bound is refused unread, the rest of its line skipped.
	c.send('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"' + 'y'.repeat(33 << 20) + '"}}');
	m = await c.next();
	assert.equal(m.error.code, -32600);
	c.send('{"jsonrpc":"2.0","id":8,"method":"ping"}');
	m = await c.next();
	assert.equal(m.id, 8);
	assert.deepEqual(m.result, {});
	// Version negotiation: an old revision we speak is kept, an unknown one gets ours.
	c.send(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'initialize', params: { protocolVersion: '2024-11-05' } }));
	assert.equal((await c.next()).result.protocolVersion, '2024-11-05');
	c.send(JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'initialize', params: { protocolVersion: '1999-01-01' } }));
	assert.equal((await c.next()).result.protocolVersion, '2025-11-25');
	c.p.stdin.end();
	assert.equal((await c.exited).code, 0);
});

await check('a request cancelled while queued never runs, and is not answered', async () => {
	// What must happen: the client sends a second call while the first runs,
	// then cancels the second: it is dropped unrun and unanswered, the
	// first completes, and the server answers what comes after.
	const c = raw(['--task', 't1']);
	c.send(init);
	await c.next();
	const runCall = (id, command) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call',
		params: { name: 'run', arguments: { task: 't1', command } } });
	c.send(runCall(20, 'sleep 1.5; echo first'));
	c.send(runCall(21, 'touch queued-ran'));
	c.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 21, reason: 'test' } }));
	c.send('{"jsonrpc":"2.0","id":22,"method":"ping"}');
	let m = await c.next();
	assert.equal(m.id, 20);
	assert.equal(m.result.structuredContent.stdout, 'first\n');
	m = await c.next();
	assert.equal(m.id, 22);
	assert.equal(existsSync(join(wt, 'queued-ran')), false);
	c.p.stdin.end();
	await c.exited;
	assert.equal(c.msgs.length, 0, 'the cancelled request was answered');
});

await check('a client that disconnects mid-run: the run is killed, nothing is left', async () => {
	// What must happen: the client goes away while a command runs; the
	// command's whole tree is killed, its next step never runs, the server
	// exits, and the task's run lock is free for the next run.
	const c = raw(['--task', 't1']);
	c.send(init);
	await c.next();
	c.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call',
		params: { name: 'run', arguments: { task: 't1', command: `sleep 32.${tag}; touch disconnect-survived` } } }));
	await new Promise(res => setTimeout(res, 1200));
	assert.notEqual(spawnSyncOut('pgrep', ['-f', `sleep 32.${tag}`]), '', 'the command did not start');
	c.p.stdin.end();
	c.p.stdout.destroy();
	const t0 = Date.now();
	await c.exited;
	assert.ok(Date.now() - t0 < 5000, 'the server took too long to end');
	assert.equal(spawnSyncOut('pgrep', ['-f', `sleep 32.${tag}`]), '', 'the command survived the disconnect');
	await new Promise(res => setTimeout(res, 500));
	assert.equal(existsSync(join(wt, 'disconnect-survived')), false);
	// Logged as cancelled, and the task runs again.
	const log = execFileSync(AGENTTASK, ['-C', repo, 'log', 't1', '--json'], { encoding: 'utf8', env });
	assert.ok(log.includes(`sleep 32.${tag}`), 'the run is not in the log');
	const out = execFileSync(AGENTTASK, ['-C', repo, 'run', 't1', '--', 'echo', 'fine'], { encoding: 'utf8', env });
	assert.equal(out, 'fine\n');
});

await check('--allow-accept offers accept and discard', async () => {
	const c = await connect(['--allow-accept']);
	const names = (await c.listTools()).tools.map(t => t.name);
	assert.ok(names.includes('accept') && names.includes('discard'));
	await call(c, 'task_new', { task: 't2' });
	let r = await call(c, 'discard', { task: 't2' });
	assert.equal(r.isError, false);
	assert.match(r.structuredContent.ref, /^refs\/agenttask\/trash\/t2\//);
	// t1 is another session's: this one reaches it only when the person names it.
	await refused(c, 'accept', { task: 't1' }, 'usage', /'t1' is out of this server's reach/);
	await c.close();
	const c1 = await connect(['--allow-accept', '--task', 't1']);
	r = await call(c1, 'accept', { task: 't1' });
	assert.equal(r.isError, false, r.content[0].text);
	assert.equal(git('show', 'main:src/a.txt'), 'l1\nl2\nL3\nl4\n');
	await c1.close();
});

await check('--allow-accept never accepts a change to a file the host runs', async () => {
	// What: an agent allowed to accept plants .vscode/tasks.json (run by the
	// editor on the person's host) and accepts it itself: plainly, with an
	// override argument, and once the person's policy allows host files.
	// Must: each accept is refused with a clear error sending the person to
	// the CLI; nothing merges; the person's own `agenttask accept` works.
	const c = await connect(['--allow-accept']);
	await call(c, 'task_new', { task: 't3' });
	let r = await call(c, 'write_file', { task: 't3', path: '.vscode/tasks.json', content: '{"tasks": []}\n' });
	assert.equal(r.isError, false, r.content[0].text);
	r = await call(c, 'diff', { task: 't3' });
	assert.deepEqual(r.structuredContent.host_files, ['.vscode/tasks.json']);
	const tip = git('rev-parse', 'main').trim();
	const hostRefusal = /changes 1 file that tools on the host run \('\.vscode\/tasks\.json'\): an agent cannot accept it; .*agenttask accept t3. on the command line/;
	await refused(c, 'accept', { task: 't3' }, 'usage', hostRefusal);
	await refused(c, 'accept', { task: 't3', override: 'the agent says it is fine' }, 'usage');
	// The person's policy lets host files through the gate: still not the agent's to accept.
	mkdirSync(join(repo, '.agenttask'), { recursive: true });
	writeFileSync(join(repo, '.agenttask', 'policy.json'), '{"host_files": "allow"}\n');
	git('add', '.agenttask/policy.json');
	git('commit', '-qm', 'policy: host files allowed');
	const policyTip = git('rev-parse', 'main').trim();
	assert.notEqual(policyTip, tip);
	await refused(c, 'accept', { task: 't3' }, 'usage', hostRefusal);
	await c.close();
	assert.equal(git('rev-parse', 'main').trim(), policyTip, 'main moved');
	assert.throws(() => git('cat-file', '-e', 'main:.vscode/tasks.json'), 'the host file reached main');
	// The person accepts it on the command line, told of the file.
	const res = spawnSync(AGENTTASK, ['-C', repo, 'accept', 't3'], { encoding: 'utf8', env });
	assert.equal(res.status, 0, res.stderr);
	assert.match(res.stderr, /warning: accepted a change to '\.vscode\/tasks\.json', which tools on the host run/);
	assert.equal(git('show', 'main:.vscode/tasks.json'), '{"tasks": []}\n');
});

rmSync(top, { recursive: true, force: true });
console.log(failures ? `FAIL: ${failures} check(s) failed` : 'PASS: all checks');
process.exit(failures ? 1 : 0);
