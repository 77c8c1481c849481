#ifndef CASTSCOPE_CLIBZIP_SHIM_H
#define CASTSCOPE_CLIBZIP_SHIM_H
#include <zip.h>
#endif
