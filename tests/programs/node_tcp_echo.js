// node_tcp_echo: a Node net server and 3 clients over 127.0.0.1 (libuv's
// epoll loop). Prints each client's echo in client order, then "ok".
// Refuses to run unless lo is its network namespace's only interface.
'use strict';
const fs = require('fs');
const net = require('net');

for (const line of fs.readFileSync('/proc/self/net/dev', 'utf8').split('\n').slice(2)) {
  const name = line.split(':')[0].trim();
  if (name && name !== 'lo') {
    console.error(`netcheck: interface ${name} present: refusing to run`);
    process.exit(3);
  }
}

const srv = net.createServer(s => {
  s.on('data', d => s.write(d.toString().toUpperCase()));
  s.on('end', () => s.end());
});
srv.listen(7601, '127.0.0.1', () => {
  const results = [];
  let left = 3;
  for (let i = 0; i < 3; i++) {
    let got = '';
    const c = net.connect(7601, '127.0.0.1', () => c.end(`hello from client ${i}`));
    c.on('data', d => { got += d; });
    c.on('end', () => {
      results[i] = got;
      if (--left === 0) {
        results.forEach((r, k) => console.log(`client ${k}: ${r}`));
        console.log('ok');
        srv.close();
      }
    });
  }
});
