#ifndef CASTSCOPE_CZSTD_SHIM_H
#define CASTSCOPE_CZSTD_SHIM_H
#include <zstd.h>
#include <zstd_errors.h>
#endif
