// node_workers: a worker thread and the main thread exchange messages while
// timers fire; prints crypto and Math.random values, the clock, and a sum.
// Under dsim one seed gives one output; the clock starts at dsim's epoch.
const { Worker, isMainThread, parentPort } = require('worker_threads');
const crypto = require('crypto');

if (isMainThread) {
  const w = new Worker(__filename);
  let sum = 0;
  w.on('message', (n) => { sum += n; });
  w.on('exit', () => {
    setTimeout(() => {
      console.log('sum', sum);
      console.log('random', crypto.randomBytes(8).toString('hex'), Math.random());
      console.log('year', new Date().getUTCFullYear());
    }, 250);
  });
  for (let i = 1; i <= 10; i++) setTimeout(() => w.postMessage(i), i * 10);
} else {
  let got = 0;
  parentPort.on('message', (i) => {
    parentPort.postMessage(i * i);
    if (++got === 10) parentPort.close();
  });
}
