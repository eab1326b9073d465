// Lets a plain `node` child process (the worker processes of the crash and multi-process specs) load
// the TypeScript sources directly, compiled file by file exactly as ts-jest compiles them
// (isolatedModules: no type information needed, decorator metadata included).
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const configPath = path.join(__dirname, '..', '..', 'tsconfig.json');
const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, path.dirname(configPath));
const compilerOptions = { ...options, module: ts.ModuleKind.CommonJS, sourceMap: false, inlineSourceMap: true, declaration: false };

require.extensions['.ts'] = (module, filename) => {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
