#ifndef CASTSCOPE_CLIBSSL_SHIM_H
#define CASTSCOPE_CLIBSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#endif
