import { describe, expect, it } from 'vitest';
import { extractSkeleton } from '../extract.js';
import { renderSkeleton } from '../render.js';
import { blankBareMacros, neutralizeMacros } from './c-family.js';

describe('neutralizeMacros', () => {
  it('blanks export, attribute and calling-convention macros, keeping every offset', () => {
    const cases: [string, string][] = [
      ['class FMT_API file {', 'class         file {'],
      ['FMT_CONSTEXPR inline text_style bg(int c) noexcept {', '              inline text_style bg(int c) noexcept {'],
      ['GLAPI const GLubyte * GLAPIENTRY glGetString( GLenum name );', '      const GLubyte *            glGetString( GLenum name );'],
      ['GL_APICALL GLenum GL_APIENTRY glGetError (void);', '           GLenum             glGetError (void);'],
      ['ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));', '        int         deflate   ((z_streamp strm, int flush));'],
      ['void XtError(String message) _X_NORETURN;', `void XtError(String message) ${' '.repeat('_X_NORETURN'.length)};`],
      ['SPDLOG_INLINE spdlog::logger::logger(std::string name)', '              spdlog::logger::logger(std::string name)'],
      ['GTEST_API_ Cardinality AtLeast(int n);', '           Cardinality AtLeast(int n);'],
    ];
    for (const [input, output] of cases) expect(neutralizeMacros(input)).toBe(output);
  });

  it('leaves types in capitals, calls and preprocessor lines alone', () => {
    for (const line of [
      'BOOL foo(int);',
      'MY_TYPE *foo(void);',
      'static HANDLE open_it(void);',
      'static const ASN1_ITEM *ASN1_ITEM_ref(void);',
      'struct FOO bar(int);',
      'return MAX(a, b);',
      '#define XCOMPOSITE_VERSION\t((XCOMPOSITE_MAJOR * 10000))',
      'class FOO final {',
    ]) {
      expect(neutralizeMacros(line)).toBe(line);
    }
  });

  it('blanks bare invocations at file level but not a GNU-style definition', () => {
    const blank = (s: string) => ' '.repeat(s.length);
    expect(blankBareMacros('__BEGIN_DECLS\nint f(void);\nDECLARE_ASN1_FUNCTIONS(X509)\nint g(void);')).toBe(`${blank('__BEGIN_DECLS')}\nint f(void);\n${blank('DECLARE_ASN1_FUNCTIONS(X509)')}\nint g(void);`);
    const gnu = 'static int\nMAIN_LOOP (int argc)\n{\n  return 0;\n}';
    expect(blankBareMacros(gnu)).toBe(gnu);
  });

  it('joins a conditional inside a class head when it has no #else', () => {
    const text = 'class store\n#if GCC_OLD\n    : public base\n#endif\n{\n};';
    expect(blankBareMacros(text)).toBe('class store\n           \n    : public base\n      \n{\n};');
    const withElse = 'class store\n#if A\n : public a\n#else\n : public b\n#endif\n{};';
    expect(blankBareMacros(withElse)).toBe(withElse);
  });

  it('makes macro-heavy headers extractable', async () => {
    const c = [
      '#ifndef Z_H',
      '#define Z_H',
      '__BEGIN_DECLS',
      'ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));',
      'DECLARE_ASN1_FUNCTIONS(X509)',
      '#define X509_get_ex_new_index(l, p) CRYPTO_get_ex_new_index(l, p)',
      'GLAPI const GLubyte * GLAPIENTRY glGetString( GLenum name );',
      '__END_DECLS',
      '#endif',
    ].join('\n');
    const { skeleton } = await extractSkeleton('z.h', c, 'c');
    expect(renderSkeleton(skeleton)).toBe(
      ['# z.h [C]', 'def deflate((z_streamp strm, int flush)) -> int', 'def glGetString(GLenum name) -> const GLubyte *', 'macro X509_get_ex_new_index(l, p)'].join('\n'),
    );
    const cpp = ['FMT_BEGIN_NAMESPACE', 'class SPDLOG_API logger : public sink {', ' public:', '  SPDLOG_INLINE void flush() SPDLOG_NOEXCEPT;', '};', 'FMT_END_NAMESPACE'].join('\n');
    const { skeleton: classes } = await extractSkeleton('l.hpp', cpp, 'cpp');
    expect(renderSkeleton(classes)).toBe(['# l.hpp [C++]', 'class logger(sink)', '  + flush() -> void'].join('\n'));
  });

  it('recovers GNU-style prototypes behind an unknown specifier, and #defines the grammar lost', async () => {
    const text = [
      'FcPublic FcBool',
      'FcAtomicLock (FcAtomic *atomic);',
      '#define FC_LOCK(a) FcAtomicLock(a)',
      'FcPublic FcChar8 *',
      'FcAtomicNewFile (FcAtomic *atomic);',
      '#define FC_NEW(a) \\',
      '    FcAtomicNewFile(a)',
      'DECLARE_STACK_OF(FcAtomic);',
      'int after(void);',
    ].join('\n');
    const { skeleton } = await extractSkeleton('fc.h', text, 'c');
    expect(renderSkeleton(skeleton)).toBe(
      [
        '# fc.h [C]',
        'def FcAtomicLock(FcAtomic *atomic) -> FcBool',
        'def FcAtomicNewFile(FcAtomic *atomic) -> FcChar8 *',
        'def after(void) -> int',
        'macro FC_LOCK(a)',
        'macro FC_NEW(a)',
      ].join('\n'),
    );
    expect(skeleton.functions.map((f) => [f.name, f.line_start])).toEqual([
      ['FcAtomicLock', 1],
      ['FcAtomicNewFile', 4],
      ['after', 9],
      ['FC_LOCK', 3],
      ['FC_NEW', 6],
    ]);
  });
});
