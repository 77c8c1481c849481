#ifndef CASTSCOPE_CZLIB_SHIM_H
#define CASTSCOPE_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 and deflateInit2 are macros (they pass zlib's version and z_stream's size),
// which Swift cannot call.
static inline int castscope_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int castscope_deflateInit2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}
#endif
