const t0 = performance.now(); const c0 = process.cpuUsage();
await import(process.argv[2]);
const c = process.cpuUsage(c0);
console.log(process.argv[2].slice(-20), 'ms', Math.round(performance.now() - t0), 'cpu', Math.round((c.user + c.system) / 1000));
