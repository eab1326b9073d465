// Lets a plain `node` child process (the worker processes of the crash and multi-process specs) load
// the TypeScript sources directly, compiled file by file exactly as ts-jest compiles them
// (isolatedModules: no type information needed, decorator metadata included).
//
// Compiling the ~130 source files costs a couple of seconds of CPU per process, and a spec starts
// several processes: the output is cached on disk, keyed by a hash of the source, its path, the
// compiler options and the TypeScript version, so an edited file is simply compiled again.
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');

const configPath = path.join(__dirname, '..', '..', 'tsconfig.json');
const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, path.dirname(configPath));
const compilerOptions = { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, inlineSourceMap: true, declaration: false };

const cacheDir = path.join(os.tmpdir(), 'ntf-register-ts-cache');
const optionsKey = JSON.stringify({ typescript: ts.version, compilerOptions });

function compile(source, filename) {
  const key = crypto.createHash('sha256').update(optionsKey).update('\0').update(filename).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    // Not cached yet: compile below.
  }
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  try {
    // Several processes may start at once: write to a file of our own, then rename (atomic), so that
    // no reader ever sees half a file. A cache that cannot be written only costs time.
    fs.mkdirSync(cacheDir, { recursive: true });
    const temporary = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, outputText);
    fs.renameSync(temporary, cached);
  } catch {
    // Read-only or full temporary directory: run uncached.
  }
  return outputText;
}

require.extensions['.ts'] = (module, filename) => {
  module._compile(compile(fs.readFileSync(filename, 'utf8'), filename), filename);
};
