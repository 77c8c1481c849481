#ifndef CASTSCOPE_CLIBPCAP_SHIM_H
#define CASTSCOPE_CLIBPCAP_SHIM_H
#include <pcap/pcap.h>
#endif
