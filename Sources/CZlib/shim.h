#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/* deflateInit2 and inflateInit2 are macros (they pass the library version and the stream's size),
   which Swift cannot call. */

/// Starts a deflate stream; `windowBits` 31 writes a gzip wrapper (RFC 1952) around the data.
static inline int CZlib_deflateInit2(z_streamp stream, int level, int windowBits, int memLevel) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, memLevel, Z_DEFAULT_STRATEGY);
}

/// Starts an inflate stream; `windowBits` 31 reads a gzip wrapper.
static inline int CZlib_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
