// A long-running Khronos glTF validator for tests: it reads one request per
// line on stdin, the base64 of a .glb or .gltf file, and answers each with
// one line of JSON on stdout, in order:
//   {"errors": N, "messages": ["CODE /pointer: message", ...]}
// N is the validator's count of issues of severity Error; messages lists
// those errors (at most 20). External resources are refused (the file must
// be self-contained), which the validator reports as an error.
// Usage: node .ci/gltf-validator.js DIR, DIR from .ci/gltf-validator.sh.
'use strict';
const path = require('path');
const readline = require('readline');

const dir = process.argv[2];
if (!dir) {
	console.error('usage: node gltf-validator.js DIR (from .ci/gltf-validator.sh)');
	process.exit(2);
}
const validator = require(path.join(dir, 'node_modules', 'gltf-validator'));

const options = {
	uri: 'fuzz',
	maxIssues: 0,
	externalResourceFunction: (uri) => Promise.reject(new Error('external resources are refused: ' + uri)),
};

// Requests are answered strictly in order: each waits for the one before.
let chain = Promise.resolve();
const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', (line) => {
	const data = new Uint8Array(Buffer.from(line, 'base64'));
	chain = chain.then(() => validator.validateBytes(data, options).then(
		(report) => {
			const errs = report.issues.messages.filter((m) => m.severity === 0);
			return {
				errors: report.issues.numErrors,
				messages: errs.slice(0, 20).map((m) => m.code + ' ' + (m.pointer || '') + ': ' + m.message),
			};
		},
		// The validator rejects what it cannot read at all (not glTF):
		// that is a verdict too.
		(err) => ({errors: 1, messages: ['REJECTED: ' + String(err)]}),
	)).then((verdict) => {
		process.stdout.write(JSON.stringify(verdict) + '\n');
	});
});
rl.on('close', () => chain.then(() => process.exit(0)));
