#ifndef CASTSCOPE_CLZ4_SHIM_H
#define CASTSCOPE_CLZ4_SHIM_H
#include <lz4frame.h>
#endif
