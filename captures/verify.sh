#!/usr/bin/env bash
# captures/verify.sh -- check that the captures contain what README.md says.
#
#   captures/verify.sh [name...]     (no root needed; needs tshark + capinfos)
#   CASTSCOPE_CAPTURE_DIR=/tmp/x captures/verify.sh [name...]   # check captures written elsewhere
#
# Prints one line per check and exits non-zero if any check fails.
set -euo pipefail
cd "${CASTSCOPE_CAPTURE_DIR:-$(dirname "${BASH_SOURCE[0]}")}"

FAIL=0
# Cast's TCP port 8009 carries TLS; tshark's default for 8009 is AJP13. 42238 is the
# Cast group's port in probe-group (TLS too; tshark has no default for it)
DECODE=(-d tcp.port==8009,tls -d tcp.port==42238,tls)
ok()   { printf '  ok    %s\n' "$*"; }
bad()  { printf '  FAIL  %s\n' "$*"; FAIL=1; }
# t FILE FILTER [FIELDS...] : tshark fields output (tab separated)
t() {
  local f=$1 y=$2
  shift 2
  local args=()
  for x in "$@"; do args+=(-e "$x"); done
  if ((${#args[@]})); then
    tshark -r "$f" "${DECODE[@]}" -Y "$y" -T fields -E separator=/t "${args[@]}" 2>/dev/null
  else
    tshark -r "$f" "${DECODE[@]}" -Y "$y" 2>/dev/null
  fi
}
n() { t "$1" "$2" | wc -l; }                # number of frames matching
expect() { # DESC FILE FILTER OP NUM
  local c
  c=$(n "$2" "$3")
  if [ "$c" "$4" "$5" ]; then ok "$1 ($c)"; else bad "$1 (got $c, want $4 $5) [$3]"; fi
}
# capinfo FILE FIELD OPTION... : the value `capinfos OPTION... FILE` prints for FIELD
capinfo() { capinfos "${@:3}" "$1" | sed -n "s/^$2: *//p"; }
# holds EXPR NAME=NUMBER... : true if the awk expression EXPR holds for those numbers
holds() {
  local e=$1 v a=()
  shift
  for v in "$@"; do a+=(-v "$v"); done
  awk "${a[@]}" "BEGIN { exit !($e) }"
}
encap() { # FILE WANT
  local e
  e=$(capinfo "$1" "File encapsulation" -E)
  [[ $e == "$2" ]] && ok "encapsulation $e" || bad "encapsulation '$e', want '$2'"
}

v_common() { # FILE
  local p d
  p=$(capinfo "$1" "Number of packets" -M -c)
  d=$(capinfo "$1" "Capture duration" -M -u)
  ok "$(basename "$1"): $p packets, $(stat -c %s "$1") bytes, $d"
  if capinfos "$1" | grep -q 'nanosecond'; then ok "nanosecond timestamps"; else ok "microsecond timestamps"; fi
  # no-mdns.pcap is the one capture that must have no discovery traffic
  [[ $(basename "$1") == no-mdns.pcap ]] || expect "has mDNS or SSDP" "$1" 'mdns || ssdp' -ge 1
}

# delays FILE QUERY_FILTER RESPONSE_FILTER : for every response, seconds since
# the latest earlier query (one line per response: frame delay)
delays() {
  tshark -r "$1" -Y "($2) || ($3)" -T fields -e frame.number -e frame.time_relative -e dns.flags.response 2>/dev/null |
    awk -F'\t' '$3 == 0 { q = $2; next } q != "" { printf "%s %.6f\n", $1, $2 - q }'
}
# gaps FILE FILTER : seconds between consecutive matching frames, one a line
gaps() {
  t "$1" "$2" frame.time_relative | awk 'NR > 1 { printf "%.6f\n", $1 - p } { p = $1 }'
}

CC='Chromecast-3f5d6b2a8c914e07b2d46a1f0c9e7d35._googlecast._tcp.local'

v_healthy-ipv4() {
  local f=healthy-ipv4.pcap
  encap $f Ethernet
  expect "sender PTR query for _googlecast._tcp.local" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "device response with PTR+SRV(8009)+TXT+A" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.txt && dns.a==192.0.2.21" -ge 1
  expect "TXT carries id/fn/md/ca" $f 'dns.txt contains "id=3f5d6b2a8c914e07b2d46a1f0c9e7d35" && dns.txt contains "fn=Living Room TV" && dns.txt contains "md=Chromecast" && dns.txt contains "ca=4101"' -ge 1
}

v_multi-device() {
  local f=multi-device.pcap
  encap $f Ethernet
  expect "query asks base type and _CC1AD845 subtype" $f 'dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local" && dns.qry.name=="_CC1AD845._sub._googlecast._tcp.local"' -ge 1
  expect "Chromecast Ultra (avahi, ca=4101) answers" $f 'ip.src==192.0.2.22 && dns.txt contains "ca=4101" && dns.srv.port==8009' -ge 1
  expect "Home Mini (zeroconf, ca=198660) answers" $f 'ip.src==192.0.2.23 && dns.txt contains "ca=198660"' -ge 1
  expect "group: md=Google Cast Group, ca=2084, SRV port 42238" $f 'dns.txt contains "md=Google Cast Group" && dns.txt contains "ca=2084" && dns.srv.port==42238' -ge 1
  expect "subtype PTR answer(s)" $f 'dns.flags.response==1 && dns.resp.name=="_CC1AD845._sub._googlecast._tcp.local"' -ge 1
}

v_goodbye() {
  local f=goodbye.pcap
  encap $f Ethernet
  expect "avahi probes (queries with authority section)" $f 'ip.src==192.0.2.21 && dns.flags.response==0 && dns.count.auth_rr>0' -ge 3
  expect "announcement/answer with TTL>0 PTR" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.resp.ttl>0" -ge 1
  expect "goodbye: PTR with TTL 0" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.resp.ttl==0" -ge 1
  local ttls
  ttls=$(t $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.resp.ttl==0" dns.resp.ttl | head -1)
  [[ $ttls =~ ^0(,0)*$ ]] && ok "goodbye packet: every record TTL 0 ($ttls)" || bad "goodbye TTLs: $ttls"
}

v_any-sll2() {
  local f=any-sll2.pcap
  encap $f "Linux cooked-mode capture v2"
  expect "SLL2 header with interface index" $f 'sll.ifindex' -ge 1
  expect "device response with SRV 8009 and A" $f 'ip.src==192.0.2.21 && dns.srv.port==8009 && dns.a==192.0.2.21' -ge 1
}

v_ipv6() {
  local f=ipv6.pcap
  encap $f Ethernet
  expect "no IPv4 at all" $f 'ip' -eq 0
  expect "queries to ff02::fb" $f 'ipv6.dst==ff02::fb && dns.flags.response==0' -ge 1
  expect "response with AAAA 2001:db8::21" $f 'ipv6.src==2001:db8::21 && dns.aaaa==2001:db8::21 && dns.srv.port==8009' -ge 1
  expect "no A records" $f 'dns.a' -eq 0
}

v_fragmented() {
  local f=fragmented.pcap
  encap $f Ethernet
  expect "IPv4 fragments (MF set)" $f 'ip.flags.mf==1' -ge 1
  expect "IPv4 non-first fragments" $f 'ip.frag_offset>0' -ge 1
  expect "IPv6 fragment headers" $f 'ipv6.fragment' -ge 1
  expect "tshark reassembles IPv4 mDNS with the whole TXT" $f 'ip && ip.fragment.count>=3 && mdns && dns.txt contains "x39="' -ge 1
  expect "tshark reassembles IPv6 mDNS with the whole TXT" $f 'ipv6 && ipv6.fragment.count>=3 && mdns && dns.txt contains "x39="' -ge 1
  expect "multicast fragmented responses (224.0.0.251)" $f 'ip.dst==224.0.0.251 && ip.flags.mf==1' -ge 1
  expect "unicast fragmented responses (QU answers)" $f 'ip.dst==192.0.2.10 && ip.flags.mf==1' -ge 1
}

v_legacy-unicast() {
  local f=legacy-unicast.pcap q sport qid
  encap $f Ethernet
  q=$(t $f 'dns.flags.response==0 && ip.dst==224.0.0.251' udp.srcport dns.id | head -1)
  sport=${q%%$'\t'*}
  qid=${q##*$'\t'}
  [[ -n $sport && $sport != 5353 ]] && ok "query from ephemeral port $sport, id $qid" || bad "query source port '$sport'"
  expect "unicast answer to that port, same id" $f "dns.flags.response==1 && ip.dst==192.0.2.10 && udp.dstport==$sport && dns.id==$qid" -ge 1
  expect "answer repeats the question" $f "dns.flags.response==1 && udp.dstport==$sport && dns.count.queries==1" -ge 1
  expect "answer TTLs all <= 10" $f "dns.flags.response==1 && udp.dstport==$sport && !(dns.resp.ttl>10)" -ge 1
  expect "no cache-flush bit in answer" $f "dns.flags.response==1 && udp.dstport==$sport && dns.resp.cache_flush==1" -eq 0
}

v_dial-ssdp() {
  local f=dial-ssdp.pcap sport
  encap $f Ethernet
  expect "4 M-SEARCH for the DIAL ST with MX 1" $f 'ssdp && http.request.method=="M-SEARCH" && ssdp contains "ST: urn:dial-multiscreen-org:service:dial:1" && ssdp contains "MX: 1"' -eq 4
  sport=$(t $f 'http.request.method=="M-SEARCH"' udp.srcport | sort -u)
  [[ $(wc -w <<<"$sport") == 1 && $sport != 1900 ]] && ok "M-SEARCH from one random port $sport" || bad "M-SEARCH ports: $sport"
  expect "NOTIFY ssdp:alive x4" $f 'http.request.method=="NOTIFY" && ssdp contains "NTS: ssdp:alive"' -eq 4
  expect "NOTIFY ssdp:byebye x4" $f 'http.request.method=="NOTIFY" && ssdp contains "NTS: ssdp:byebye"' -eq 4
  expect "unicast 200 OK from ephemeral ports to the searcher" $f "ip.src==192.0.2.21 && udp.dstport==$sport && udp.srcport!=1900 && udp contains \"HTTP/1.1 200 OK\" && udp contains \"LOCATION: http://192.0.2.21:8008/ssdp/device-desc.xml\" && udp contains \"USN: uuid:3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35::urn:dial-multiscreen-org:service:dial:1\"" -eq 4
  expect "device description fetched (Application-URL)" $f 'http.response.code==200 && http contains "Application-URL: http://192.0.2.21:8008/apps"' -ge 1
}

v_dial-other-device() {
  local f=dial-other-device.pcap sport
  encap $f Ethernet
  expect "4 M-SEARCH for the DIAL ST, Chrome's USER-AGENT" $f 'ssdp && http.request.method=="M-SEARCH" && ssdp contains "ST: urn:dial-multiscreen-org:service:dial:1" && ssdp contains "USER-AGENT: Google Chrome/"' -eq 4
  sport=$(t $f 'http.request.method=="M-SEARCH"' udp.srcport | sort -u)
  [[ $(wc -w <<<"$sport") == 1 && $sport != 1900 ]] && ok "M-SEARCH from one random port $sport" || bad "M-SEARCH ports: $sport"
  expect "Chromecast-style 200 OK from ephemeral ports, LOCATION :8008/ssdp/device-desc.xml" $f "ip.src==192.0.2.21 && udp.dstport==$sport && udp.srcport!=1900 && udp contains \"HTTP/1.1 200 OK\" && udp contains \"LOCATION: http://192.0.2.21:8008/ssdp/device-desc.xml\"" -eq 4
  expect "Roku-style 200 OK from port 1900, LOCATION :8060/dial/dd.xml, Roku SERVER" $f "ip.src==192.0.2.26 && udp.srcport==1900 && udp.dstport==$sport && udp contains \"HTTP/1.1 200 OK\" && udp contains \"LOCATION: http://192.0.2.26:8060/dial/dd.xml\" && udp contains \"Server: Roku UPnP/1.0 Roku/9.1.0\"" -eq 4
  expect "nothing at all from the Roku besides its answers (no NOTIFY, no HTTP)" $f 'ip.src==192.0.2.26 && !(udp.srcport==1900) && !igmp' -eq 0
  expect "no mDNS" $f 'mdns' -eq 0
}

v_dial-unanswered() {
  local f=dial-unanswered.pcap sport
  encap $f Ethernet
  expect "4 M-SEARCH for the DIAL ST, Chrome's USER-AGENT" $f 'ssdp && http.request.method=="M-SEARCH" && ssdp contains "ST: urn:dial-multiscreen-org:service:dial:1" && ssdp contains "USER-AGENT: Google Chrome/"' -eq 4
  sport=$(t $f 'http.request.method=="M-SEARCH"' udp.srcport | sort -u)
  expect "Roku-style 200 OK from port 1900 only" $f "ip.src==192.0.2.26 && udp.srcport==1900 && udp.dstport==$sport && udp contains \"LOCATION: http://192.0.2.26:8060/dial/dd.xml\"" -eq 4
  expect "nothing from a Chromecast-style device (192.0.2.21)" $f 'ip.src==192.0.2.21 || eth.src==02:ca:57:00:00:21' -eq 0
  expect "no mDNS" $f 'mdns' -eq 0
}

v_client-isolation() {
  local f=client-isolation.pcap
  encap $f Ethernet
  expect "sender's own queries" $f 'ip.src==192.0.2.10 && mdns && dns.flags.response==0' -ge 2
  expect "the wired host's queries are visible" $f 'ip.src==192.0.2.5 && mdns' -ge 1
  expect "nothing at all from the device 192.0.2.21" $f 'ip.src==192.0.2.21 || eth.src==02:ca:57:00:00:21' -eq 0
  expect "no mDNS response of any kind" $f 'mdns && dns.flags.response==1' -eq 0
}

v_own-queries-dropped() {
  local f=own-queries-dropped.pcap first_q phone_q first_r
  encap $f Ethernet
  expect "device announcements are visible" $f "ip.src==192.0.2.21 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\"" -ge 2
  first_q=$(t $f 'ip.src==192.0.2.10 && dns.flags.response==0' frame.time_relative | head -1)
  phone_q=$(t $f 'ip.src==192.0.2.11 && dns.flags.response==0' frame.time_relative | head -1)
  first_r=$(t $f "ip.src==192.0.2.21 && dns.flags.response==1 && frame.time_relative>$first_q" frame.time_relative | head -1)
  if [[ -n $first_q && -n $phone_q && -n $first_r ]] && holds 'r >= p' r="$first_r" p="$phone_q"; then
    ok "after the sender starts querying (t=$first_q) the first answer (t=$first_r) follows the phone's query (t=$phone_q)"
  else
    bad "sender q=$first_q phone q=$phone_q first response=$first_r"
  fi
  expect "sender's queries repeated (unanswered)" $f "ip.src==192.0.2.10 && dns.flags.response==0 && frame.time_relative<$phone_q" -ge 2
}

v_reflector() {
  local f=reflector.pcap
  encap $f Ethernet
  expect "responses come from the reflector 192.0.2.1" $f 'ip.src==192.0.2.1 && dns.flags.response==1' -ge 1
  expect "reflected A record points to the other subnet (192.0.2.150)" $f 'ip.src==192.0.2.1 && dns.a==192.0.2.150' -ge 1
  expect "reflected SRV port 8009" $f 'ip.src==192.0.2.1 && dns.srv.port==8009' -ge 1
  expect "nothing directly from 192.0.2.150" $f 'ip.src==192.0.2.150' -eq 0
}

# --- diagnosis scenarios (issue #4) -----------------------------------------

v_no-cast-queries() {
  local f=no-cast-queries.pcap
  encap $f Ethernet
  expect "no query asks for _googlecast._tcp.local or an app-ID subtype" $f 'dns.flags.response==0 && (dns.qry.name=="_googlecast._tcp.local" || dns.qry.name contains "._sub._googlecast._tcp.local")' -eq 0
  expect "no PTR question about _googlecast at all" $f 'dns.flags.response==0 && dns.qry.type==12 && dns.qry.name contains "_googlecast"' -eq 0
  expect "the Cast device announces itself (PTR, TTL>0)" $f "ip.src==192.0.2.21 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\" && dns.resp.ttl>0 && dns.txt contains \"fn=Living Room TV\"" -ge 2
  expect "the sender browses _ipp._tcp (other mDNS)" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_ipp._tcp.local"' -ge 1
  expect "the printer answers the sender" $f 'ip.src==192.0.2.30 && dns.flags.response==1 && dns.ptr.domain_name=="Office Printer._ipp._tcp.local" && dns.srv.port==631' -ge 1
  expect "the sender sends nothing about Cast" $f 'ip.src==192.0.2.10 && frame contains "googlecast"' -eq 0
}

v_no-mdns() {
  local f=no-mdns.pcap
  encap $f Ethernet
  expect "no mDNS at all (UDP 5353)" $f 'udp.port==5353 || mdns' -eq 0
  expect "no SSDP (UDP 1900)" $f 'udp.port==1900 || ssdp' -eq 0
  expect "no IGMP join for 224.0.0.251" $f 'igmp.maddr==224.0.0.251' -eq 0
  expect "ARP request and reply" $f 'arp' -ge 2
  expect "3 ICMP echo requests" $f 'ip.src==192.0.2.10 && icmp.type==8' -eq 3
  expect "3 ICMP echo replies" $f 'ip.src==192.0.2.21 && icmp.type==0' -eq 3
  expect "UDP echo exchange on port 7 (3 each way)" $f 'udp.port==7' -eq 6
}

v_app-id-unanswered() {
  local f=app-id-unanswered.pcap q0
  encap $f Ethernet
  expect "queries ask base type and _DEADBEEF subtype together" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local" && dns.qry.name=="_DEADBEEF._sub._googlecast._tcp.local"' -ge 2
  expect "the device announces the _CC1AD845 subtype" $f 'ip.src==192.0.2.22 && dns.flags.response==1 && dns.resp.name=="_CC1AD845._sub._googlecast._tcp.local"' -ge 1
  expect "... and no other subtype" $f 'dns.flags.response==1 && dns.resp.name contains "._sub." && !(dns.resp.name=="_CC1AD845._sub._googlecast._tcp.local")' -eq 0
  q0=$(t $f 'ip.src==192.0.2.10 && dns.flags.response==0' frame.time_relative | head -1)
  expect "the base type is answered after the sender's first query (t=${q0:-none})" $f "ip.src==192.0.2.22 && dns.flags.response==1 && dns.resp.name==\"_googlecast._tcp.local\" && dns.ptr.domain_name==\"Chromecast-Ultra-7a0e4c192d6b4f8395c1e8b3a2d7f604._googlecast._tcp.local\" && frame.time_relative > ${q0:-1e9}" -ge 1
  expect "nobody ever answers _DEADBEEF" $f 'dns.flags.response==1 && (dns.resp.name=="_DEADBEEF._sub._googlecast._tcp.local" || frame contains "DEADBEEF")' -eq 0
}

v_incomplete-resolution() {
  local f=incomplete-resolution.pcap
  encap $f Ethernet
  expect "sender PTR query" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "device answers with the PTR only (AN=1, AR=0)" $f "ip.src==192.0.2.21 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\" && dns.count.answers==1 && dns.count.add_rr==0 && dns.count.auth_rr==0" -ge 1
  expect "sender's follow-up SRV queries" $f "ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.type==33 && dns.qry.name==\"$CC\"" -ge 2
  expect "sender's follow-up TXT queries" $f "ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.type==16 && dns.qry.name==\"$CC\"" -ge 2
  expect "no SRV, TXT, A or AAAA record anywhere" $f 'dns.flags.response==1 && (dns.resp.type==33 || dns.resp.type==16 || dns.resp.type==1 || dns.resp.type==28)' -eq 0
  expect "every response is a lone PTR" $f 'dns.flags.response==1 && !(dns.count.answers==1 && dns.resp.type==12)' -eq 0
}

v_cached-address() {
  local f=cached-address.pcap
  encap $f Ethernet
  expect "device announces its A record alone" $f 'ip.src==192.0.2.21 && dns.flags.response==1 && dns.count.answers==1 && dns.resp.type==1 && dns.count.add_rr==0' -eq 1
  expect "sender PTR query" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "answer with PTR, SRV and TXT" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.resp.type==33 && dns.resp.type==16" -eq 1
  expect "no answer carries the A again" $f 'ip.src==192.0.2.21 && dns.resp.type==12 && dns.resp.type==1' -eq 0
  expect "the sender never asks for the A" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.type==1' -eq 0
  local d
  d=$(tshark -r $f -Y 'dns.flags.response==1 && ip.src==192.0.2.21' -T fields -e frame.time_relative 2>/dev/null | awk 'NR==1{a=$1} NR==2{printf "%.3f", $1-a}')
  holds 'd > 0 && d < 1' d="$d" && ok "answer $d s after the A (< 1 s)" || bad "answer $d s after the A, want < 1 s"
}

v_local-name-dns() {
  local f=local-name-dns.pcap
  encap $f Ethernet
  expect "sender PTR query" $f 'ip.src==192.0.2.10 && udp.port==5353 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "device's mDNS answer with the A record" $f 'ip.src==192.0.2.21 && udp.port==5353 && dns.flags.response==1 && dns.a==192.0.2.21' -ge 1
  expect "unicast DNS query for the SRV target" $f 'ip.src==192.0.2.10 && ip.dst==192.0.2.53 && udp.dstport==53 && dns.flags.response==0 && dns.qry.name=="3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35.local"' -eq 1
  expect "NXDOMAIN from the DNS server" $f 'ip.src==192.0.2.53 && udp.srcport==53 && dns.flags.rcode==3' -eq 1
}

v_wrong-interface() {
  local f=wrong-interface.pcap
  encap $f "Linux cooked-mode capture v2"
  expect "sender queries from its second interface" $f 'ip.src==198.51.100.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 2
  expect "phone queries on the LAN" $f 'ip.src==192.0.2.11 && dns.flags.response==0' -ge 1
  expect "the TV answers on the LAN interface only" $f 'ip.src==192.0.2.21 && dns.flags.response==1 && sll.ifindex==3' -eq 0
  expect "the TV's answer" $f 'ip.src==192.0.2.21 && dns.flags.response==1' -ge 1
  expect "nothing from 198.51.100.0/24 but the sender" $f 'ip.src==198.51.100.0/24 && !(ip.src==198.51.100.10)' -eq 0
}

v_txt-missing-fn() {
  local f=txt-missing-fn.pcap keys
  encap $f Ethernet
  expect "device response with PTR+SRV(8009)+TXT+A" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.txt && dns.a==192.0.2.21" -ge 1
  expect "TXT carries id/md/ca" $f 'dns.txt contains "id=3f5d6b2a8c914e07b2d46a1f0c9e7d35" && dns.txt contains "md=Chromecast" && dns.txt contains "ca=4101"' -ge 1
  expect "no TXT string has an fn key" $f 'dns.txt contains "fn="' -eq 0
  keys=$(t $f 'ip.src==192.0.2.21 && dns.txt' dns.txt | head -1 | tr ',' '\n' | cut -d= -f1 | tr '\n' ' ')
  [[ $keys == "id cd rm ve md ic ca st bs nf rs " ]] && ok "TXT keys: $keys" || bad "TXT keys: '$keys'"
}

v_device-expired() {
  local f=device-expired.pcap last end ttls
  encap $f Ethernet
  expect "device answers the first query" $f 'ip.src==192.0.2.21 && dns.flags.response==1 && dns.srv.port==8009 && dns.a==192.0.2.21' -ge 1
  ttls=$(t $f 'ip.src==192.0.2.21 && dns.flags.response==1' dns.resp.ttl | sort -u | tr '\n' ' ')
  [[ $ttls =~ ^10(,10)*\ $ ]] && ok "every record has TTL 10 ($ttls)" || bad "TTLs: $ttls"
  expect "no goodbye (no TTL 0)" $f 'dns.resp.ttl==0' -eq 0
  last=$(t $f 'ip.src==192.0.2.21 && mdns' frame.time_relative | tail -1)
  last=${last:-1e9}
  end=$(capinfo $f "Capture duration" -M -u)
  end=${end%% *}
  holds 'e - l > 25' l="$last" e="$end" && ok "last mDNS from the device at t=$last, capture ends at t=$end (> 2.5 x TTL later)" || bad "last=$last end=$end"
  expect "refresh queries at 80-95 % of the TTL (SRV, no answer)" $f "ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.type==33 && frame.time_relative>$last+7.5 && frame.time_relative<$last+10" -eq 4
  expect "PTR queries without known answers after the last answer" $f "ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name==\"_googlecast._tcp.local\" && dns.count.answers==0 && frame.time_relative>$last" -ge 5
  expect "PTR queries after the TTL ran out" $f "ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name==\"_googlecast._tcp.local\" && frame.time_relative>$last+10" -ge 2
  expect "the killed process's socket leaves 224.0.0.251 (kernel IGMP leave)" $f 'ip.src==192.0.2.21 && igmp.maddr==224.0.0.251 && igmp.record_type==3' -ge 1
}

v_slow-response() {
  local f=slow-response.pcap d n bad_d
  encap $f Ethernet
  expect "Chromecast-like answers: AN=PTR, AR=TXT+SRV+A" $f "ip.src==192.0.2.21 && dns.flags.response==1 && dns.count.answers==1 && dns.count.add_rr==3 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.a==192.0.2.21 && dns.txt contains \"fn=Living Room TV\"" -ge 2
  d=$(delays $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' 'ip.src==192.0.2.21 && dns.flags.response==1')
  n=$(awk 'NF {c++} END {print c+0}' <<<"$d")
  bad_d=$(awk '$2 < 0.55 || $2 > 1.0' <<<"$d")
  [[ $n -ge 2 && -z $bad_d ]] && ok "every answer 0.55-1.0 s after its query (frame delay): $(tr '\n' ' ' <<<"$d")" || bad "delays: $d"
}

v_duplicate-name() {
  local f=duplicate-name.pcap
  encap $f Ethernet
  local srcs ids hosts
  srcs=$(t $f 'dns.flags.response==1 && dns.txt contains "fn=Living Room TV"' ip.src | sort -u | tr '\n' ' ')
  ids=$(t $f 'dns.flags.response==1 && dns.txt contains "fn=Living Room TV"' dns.txt | tr ',' '\n' | grep '^id=' | sort -u | tr '\n' ' ')
  hosts=$(t $f 'dns.flags.response==1 && dns.txt contains "fn=Living Room TV"' dns.srv.target | sort -u | tr '\n' ' ')
  [[ $srcs == "192.0.2.21 192.0.2.25 " ]] && ok "fn=Living Room TV from two hosts: $srcs" || bad "sources: $srcs"
  [[ $(wc -w <<<"$ids") == 2 ]] && ok "two different ids: $ids" || bad "ids: $ids"
  [[ $(wc -w <<<"$hosts") == 2 ]] && ok "two different SRV targets: $hosts" || bad "targets: $hosts"
}

v_address-changed() {
  local f=address-changed.pcap old new
  encap $f Ethernet
  local H=3f5d6b2a-8c91-4e07-b2d4-6a1f0c9e7d35.local
  old=$(t $f "dns.flags.response==1 && dns.resp.name==\"$H\" && dns.a==192.0.2.21" frame.time_relative | head -1)
  new=$(t $f "dns.flags.response==1 && dns.resp.name==\"$H\" && dns.a==192.0.2.31" frame.time_relative | head -1)
  [[ -n $old && -n $new ]] && holds 'n > o' o="$old" n="$new" &&
    ok "host A 192.0.2.21 at t=$old, then A 192.0.2.31 at t=$new" || bad "old=$old new=$new"
  expect "first answer (from 192.0.2.21) carries A 192.0.2.21" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.a==192.0.2.21" -ge 1
  expect "re-announcements from 192.0.2.31 with A 192.0.2.31, cache-flush" $f "ip.src==192.0.2.31 && dns.flags.response==1 && dns.a==192.0.2.31 && dns.resp.cache_flush==1" -ge 2
  expect "same SRV target and port before and after" $f "dns.srv.target==\"$H\" && dns.srv.port==8009 && (ip.src==192.0.2.21 || ip.src==192.0.2.31)" -ge 2
  expect "nothing from 192.0.2.21 after the change" $f "ip.src==192.0.2.21 && frame.time_relative>${new:-0}" -eq 0
}

v_query-storm() {
  local f=query-storm.pcap Q g n fast maxg
  encap $f Ethernet
  Q='ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"'
  expect "at least 25 PTR queries" $f "$Q" -ge 25
  expect "all from port 5353, QM, no known answers" $f "$Q && !(udp.srcport==5353 && dns.count.answers==0 && dns.qry.qu==0)" -eq 0
  g=$(gaps $f "$Q")
  n=$(awk 'NF {c++} END {print c+0}' <<<"$g")
  fast=$(awk '$1 < 0.9 {c++} END {print c+0}' <<<"$g")
  maxg=$(sort -g <<<"$g" | tail -1)
  [[ $fast == "$n" ]] && holds 'm < 0.25' m="$maxg" &&
    ok "all $n query intervals < 0.25 s (largest $maxg s)" || bad "$fast of $n intervals < 0.9 s, largest $maxg"
  expect "the device answers (multicast)" $f "ip.src==192.0.2.21 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\" && ip.dst==224.0.0.251" -ge 2
}

v_repeater() {
  local f=repeater.pcap dev rep
  encap $f Ethernet
  expect "the device answers directly: PTR from 192.0.2.21 with IP TTL 255" $f "ip.src==192.0.2.21 && ip.ttl==255 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\"" -ge 1
  expect "the same PTR repeated from 192.0.2.40 with IP TTL 1" $f "ip.src==192.0.2.40 && ip.ttl==1 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\"" -ge 1
  expect "repeated copies come from the repeater's MAC, port 5353, to 224.0.0.251" $f 'ip.src==192.0.2.40 && mdns && !(eth.src==02:ca:57:00:00:40 && udp.srcport==5353 && ip.dst==224.0.0.251)' -eq 0
  expect "every mDNS packet from the repeater has TTL 1" $f 'ip.src==192.0.2.40 && mdns && ip.ttl!=1' -eq 0
  expect "every mDNS packet from the device has TTL 255" $f 'ip.src==192.0.2.21 && mdns && ip.ttl!=255' -eq 0
  expect "the repeater sends no queries" $f 'ip.src==192.0.2.40 && mdns && dns.flags.response==0' -eq 0
  expect "repeated answers still carry A 192.0.2.21, never the repeater's address" $f 'ip.src==192.0.2.40 && dns.a==192.0.2.21 && !(dns.a==192.0.2.40)' -ge 1
  dev=$(t $f 'ip.src==192.0.2.21 && dns.flags.response==1 && ip.dst==224.0.0.251' udp.payload | sort)
  rep=$(t $f 'ip.src==192.0.2.40 && dns.flags.response==1' udp.payload | sort)
  [[ -n $dev && $dev == "$rep" ]] && ok "each multicast response from the device is repeated once, byte for byte ($(wc -l <<<"$rep"))" ||
    bad "device payloads ($(wc -l <<<"$dev")) and repeated payloads ($(wc -l <<<"$rep")) differ"
}

v_advertised-address() {
  local f=advertised-address.pcap
  encap $f Ethernet
  expect "Living Room TV answers from 192.0.2.21 (its MAC, TTL 255) with A 172.17.0.2 only" $f 'eth.src==02:ca:57:00:00:21 && ip.src==192.0.2.21 && ip.ttl==255 && dns.flags.response==1 && dns.a==172.17.0.2 && !(dns.a==192.0.2.21)' -ge 1
  expect "the Home Mini answers from 192.0.2.23 with A 192.0.2.23 and A 169.254.23.1" $f 'eth.src==02:ca:57:00:00:23 && ip.src==192.0.2.23 && ip.ttl==255 && dns.a==192.0.2.23 && dns.a==169.254.23.1' -ge 1
  expect "nothing is sent from or to 172.17.0.2 or 169.254.23.1" $f 'ip.addr==172.17.0.2 || ip.addr==169.254.23.1 || arp.dst.proto_ipv4==172.17.0.2 || arp.dst.proto_ipv4==169.254.23.1' -eq 0
  expect "every mDNS response has IP TTL 255 (no relay on the path)" $f 'mdns && dns.flags.response==1 && ip.ttl!=255' -eq 0
}

v_relayed-queries() {
  local f=relayed-queries.pcap
  encap $f Ethernet
  expect "the sender's queries arrive relayed: source 192.0.2.10 from the relay's MAC" $f 'ip.src==192.0.2.10 && eth.src==02:ca:57:00:01:29 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "the phone's queries arrive relayed the same way" $f 'ip.src==192.0.2.11 && eth.src==02:ca:57:00:01:29 && dns.flags.response==0' -ge 1
  expect "no packet with those sources comes from their own MACs (capture on the device's side)" $f '(ip.src==192.0.2.10 || ip.src==192.0.2.11) && !(eth.src==02:ca:57:00:01:29)' -eq 0
  expect "the on-link querier 192.0.2.140 asks from its own MAC" $f 'ip.src==192.0.2.140 && eth.src==02:ca:57:00:01:40 && dns.flags.response==0' -ge 1
  expect "the device answers (from 192.0.2.150, TTL 255)" $f "ip.src==192.0.2.150 && ip.ttl==255 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\"" -ge 1
  # every answer follows an on-link query within 1 s: the relayed ones are never answered
  local late
  late=$(tshark -r $f -Y '(dns.flags.response==0 && ip.src==192.0.2.140) || (dns.flags.response==1 && ip.src==192.0.2.150)' -T fields -e frame.time_relative -e dns.flags.response 2>/dev/null |
    awk -F'\t' '$2==0 {q=$1} $2==1 && (q=="" || $1-q>1) {n++} END {print n+0}')
  [[ $late == 0 ]] && ok "every answer follows a query of the on-link querier within 1 s" || bad "$late answers without an on-link query before them"
}

v_vlan-separated() {
  local f=vlan-separated.pcap
  encap $f Ethernet
  expect "every frame carries one 802.1Q tag" $f '!vlan' -eq 0
  expect "the sender's frames are on VLAN 10 only" $f 'ip.src==192.0.2.10 && !(vlan.id==10)' -eq 0
  expect "the device's and the phone's frames are on VLAN 20 only" $f 'ip.src==198.51.100.0/24 && !(vlan.id==20)' -eq 0
  expect "sender PTR queries for _googlecast._tcp.local on VLAN 10" $f 'vlan.id==10 && ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 2
  expect "the device answers on VLAN 20 (PTR+SRV+A 198.51.100.21)" $f "vlan.id==20 && ip.src==198.51.100.21 && dns.ptr.domain_name==\"$CC\" && dns.a==198.51.100.21" -ge 1
  expect "the phone on VLAN 20 queries" $f 'vlan.id==20 && ip.src==198.51.100.11 && dns.flags.response==0' -ge 1
  expect "no Cast record ever appears on VLAN 10" $f 'vlan.id==10 && dns.flags.response==1' -eq 0
}

v_multicast-decayed() {
  local f=multicast-decayed.pcap first last
  encap $f Ethernet
  expect "sender QM queries for _googlecast._tcp.local" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.qu==0' -ge 12
  expect "sender QU queries" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.qu==1' -ge 4
  expect "the device's multicast answers and announcements (first 20 s)" $f "ip.src==192.0.2.21 && ip.dst==224.0.0.251 && dns.ptr.domain_name==\"$CC\"" -ge 2
  expect "the device's unicast answers to QU queries" $f "ip.src==192.0.2.21 && ip.dst==192.0.2.10 && udp.dstport==5353 && dns.ptr.domain_name==\"$CC\"" -ge 3
  last=$(t $f 'ip.src==192.0.2.21 && ip.dst==224.0.0.251' frame.time_relative | tail -1)
  first=$(t $f 'ip.src==192.0.2.21 && ip.dst==192.0.2.10' frame.time_relative | tail -1)
  holds 'l < 25 && u > l + 15' l="$last" u="$first" && ok "no multicast from the device after ${last}s, unicast until ${first}s" ||
    bad "multicast from the device until ${last}s, unicast until ${first}s"
  expect "every mDNS packet from the device has IP TTL 255" $f 'ip.src==192.0.2.21 && mdns && ip.ttl!=255' -eq 0
}

# --- after discovery: TCP and TLS to the advertised address and port --------

SYN='ip.src==192.0.2.10 && ip.dst==192.0.2.21 && tcp.dstport==8009 && tcp.flags.syn==1 && tcp.flags.ack==0 && !icmp'
SYNACK='ip.src==192.0.2.21 && tcp.srcport==8009 && tcp.flags.syn==1 && tcp.flags.ack==1 && !icmp'

v_connect_common() { # FILE : the discovery exchange, then SYNs to the advertised address and port only
  local f=$1 a s p
  encap $f Ethernet
  expect "sender PTR query for _googlecast._tcp.local" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "device answer with PTR, SRV 8009 and A 192.0.2.21" $f "ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.a==192.0.2.21" -ge 1
  a=$(t $f 'ip.src==192.0.2.21 && dns.srv.port==8009 && dns.a==192.0.2.21' frame.time_relative | head -1)
  s=$(t $f "$SYN" frame.time_relative | head -1)
  [[ -n $a && -n $s ]] && holds 's > a' a="$a" s="$s" &&
    ok "first SYN to 192.0.2.21:8009 at t=$s, after the answer at t=$a" || bad "answer at t=$a, first SYN at t=$s"
  expect "no TCP except between 192.0.2.10 and 192.0.2.21:8009" $f 'tcp && !(ip.addr==192.0.2.10 && ip.addr==192.0.2.21 && tcp.port==8009)' -eq 0
  p=$(t $f 'ip.src==192.0.2.10 && tcp && !icmp' tcp.srcport | sort -u | tr '\n' ' ')
  p=${p% }
  [[ $(wc -w <<<"$p") == 1 ]] && ok "one connection attempt, from port $p" || bad "sender source ports: '$p'"
}

v_connect-established() {
  local f=connect-established.pcap
  v_connect_common $f
  expect "one SYN" $f "$SYN" -eq 1
  expect "one SYN-ACK from 192.0.2.21:8009" $f "$SYNACK" -eq 1
  expect "TLS Client Hello from the sender" $f 'ip.src==192.0.2.10 && tls.handshake.type==1' -eq 1
  expect "... without SNI" $f 'tls.handshake.type==1 && tls.handshake.extensions_server_name' -eq 0
  expect "TLS Server Hello from 192.0.2.21:8009" $f 'ip.src==192.0.2.21 && tcp.srcport==8009 && tls.handshake.type==2' -eq 1
  expect "FIN from the sender" $f 'ip.src==192.0.2.10 && tcp.flags.fin==1' -eq 1
  expect "FIN from the device" $f 'ip.src==192.0.2.21 && tcp.flags.fin==1' -eq 1
  expect "no RST" $f 'tcp.flags.reset==1' -eq 0
  local h f1
  h=$(t $f 'tls.handshake.type==2' frame.number | head -1)
  f1=$(t $f 'tcp.flags.fin==1' frame.number | head -1)
  [[ -n $h && -n $f1 ]] && ((f1 > h)) && ok "Server Hello (frame $h) before the first FIN (frame $f1)" || bad "Server Hello frame '$h', first FIN frame '$f1'"
}

v_connect-refused() {
  local f=connect-refused.pcap seq s r
  v_connect_common $f
  expect "one SYN (no retransmission)" $f "$SYN" -eq 1
  seq=$(t $f "$SYN" tcp.seq_raw | head -1)
  expect "RST+ACK from 192.0.2.21:8009 acknowledging the SYN" $f "ip.src==192.0.2.21 && tcp.srcport==8009 && tcp.flags.reset==1 && tcp.flags.ack==1 && tcp.ack_raw==$((${seq:-0} + 1))" -eq 1
  s=$(t $f "$SYN" frame.time_relative | head -1)
  r=$(t $f 'tcp.flags.reset==1' frame.time_relative | head -1)
  holds 'r > s && r - s < 0.1' s="$s" r="$r" && ok "RST at t=$r, right after the SYN (t=$s)" || bad "SYN at t=$s, RST at t=$r"
  expect "no SYN-ACK" $f "$SYNACK" -eq 0
  expect "no TLS, no ICMP" $f 'tls || icmp' -eq 0
}

v_connect-timeout() {
  local f=connect-timeout.pcap g span
  v_connect_common $f
  expect "at least 3 SYNs (retransmitted)" $f "$SYN" -ge 3
  expect "retransmissions marked by tshark" $f "$SYN && tcp.analysis.retransmission" -ge 2
  [[ $(t $f "$SYN" tcp.srcport tcp.seq_raw | sort -u | wc -l) == 1 ]] && ok "every SYN has the same port and sequence number" || bad "SYNs differ in port or sequence number"
  g=$(gaps $f "$SYN")
  span=$(awk '{s += $1} END {printf "%.3f", s}' <<<"$g")
  [[ -z $(awk '$1 < 0.9 || $1 > 2.5' <<<"$g") ]] && holds 'x >= 2.5 && x < 4.6' x="$span" &&
    ok "SYN intervals $(tr '\n' ' ' <<<"$g")(first to last ${span} s, within the 4.5 s connect timeout)" || bad "SYN intervals: $(tr '\n' ' ' <<<"$g")"
  expect "no TCP or ICMP at all from 192.0.2.21" $f 'ip.src==192.0.2.21 && (tcp || icmp)' -eq 0
}

v_connect-unreachable() {
  local f=connect-unreachable.pcap syn sp seq id
  v_connect_common $f
  expect "one SYN (no retransmission)" $f "$SYN" -eq 1
  expect "one ICMP port unreachable (type 3, code 3) from 192.0.2.21 to the sender" $f 'ip.src==192.0.2.21 && ip.dst==192.0.2.10 && icmp.type==3 && icmp.code==3' -eq 1
  syn=$(t $f "$SYN" tcp.srcport tcp.seq_raw ip.id | head -1)
  read -r sp seq id <<<"$syn"
  expect "... quoting the SYN (port $sp, sequence $seq, IP id $id)" $f "icmp.type==3 && ip.id==$id && tcp.srcport==$sp && tcp.dstport==8009 && tcp.seq==$seq && tcp.flags.syn==1" -eq 1
  expect "no SYN-ACK, no RST, no TLS" $f "($SYNACK) || tcp.flags.reset==1 || tls" -eq 0
  expect "the ICMP error is the only ICMP" $f 'icmp && !(icmp.type==3 && icmp.code==3)' -eq 0
}

# the TV advertises 198.51.100.7, which no host has; the sender's default gateway is 192.0.2.1
WSYN='ip.src==192.0.2.10 && ip.dst==198.51.100.7 && tcp.dstport==8009 && tcp.flags.syn==1 && tcp.flags.ack==0 && !icmp'
HOSTUNREACH='eth.src==02:ca:57:00:00:01 && ip.src==192.0.2.1 && ip.dst==192.0.2.10 && icmp.type==3 && icmp.code==1'

v_connect-wrong-address() {
  local f=connect-wrong-address.pcap a s i p ids id bad_ids
  encap $f Ethernet
  expect "sender PTR query for _googlecast._tcp.local" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local"' -ge 1
  expect "the TV answers from 192.0.2.21 (its MAC) with PTR, SRV 8009 and A 198.51.100.7 only" $f "eth.src==02:ca:57:00:00:21 && ip.src==192.0.2.21 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.a==198.51.100.7 && !(dns.a==192.0.2.21)" -ge 1
  expect "no packet from 198.51.100.7, no ARP for it on the LAN" $f 'ip.src==198.51.100.7 || arp.dst.proto_ipv4==198.51.100.7 || arp.src.proto_ipv4==198.51.100.7' -eq 0
  expect "the sender ARPs for its gateway 192.0.2.1" $f 'arp.src.proto_ipv4==192.0.2.10 && arp.dst.proto_ipv4==192.0.2.1' -ge 1
  expect "SYNs to 198.51.100.7:8009 (retransmitted until the ICMP)" $f "$WSYN" -ge 3
  expect "... all sent to the router's MAC" $f "$WSYN && !(eth.dst==02:ca:57:00:00:01)" -eq 0
  [[ $(t $f "$WSYN" tcp.srcport tcp.seq_raw | sort -u | wc -l) == 1 ]] && ok "every SYN has the same port and sequence number (one connection attempt)" || bad "SYNs differ in port or sequence number"
  expect "no other TCP" $f "tcp && !icmp && !($WSYN)" -eq 0
  a=$(t $f 'ip.src==192.0.2.21 && dns.a==198.51.100.7' frame.time_relative | head -1)
  s=$(t $f "$WSYN" frame.time_relative | head -1)
  [[ -n $a && -n $s ]] && holds 's > a' a="$a" s="$s" &&
    ok "first SYN to 198.51.100.7:8009 at t=$s, after the answer at t=$a" || bad "answer at t=$a, first SYN at t=$s"
  expect "ICMP host unreachable (type 3, code 1) from the router 192.0.2.1 to the sender" $f "$HOSTUNREACH" -ge 1
  i=$(t $f "$HOSTUNREACH" frame.time_relative | head -1)
  [[ -n $i ]] && holds 'i - s > 2.8 && i - s < 3.6' s="$s" i="$i" &&
    ok "first ICMP at t=$i, about 3 s after the first SYN (the router's ARP gave up)" || bad "first SYN at t=$s, first ICMP at t=$i"
  # each ICMP quotes a SYN: its second ip.id (the quoted header) is one of the SYNs' IP ids
  ids=" $(t $f "$WSYN" ip.id | tr '\n' ' ') "
  bad_ids=0
  while IFS=, read -r _outer id; do [[ $ids == *" $id "* ]] || bad_ids=$((bad_ids + 1)); done < <(t $f "$HOSTUNREACH" ip.id)
  expect "... quoting the SYN (port 8009, SYN flag, sequence number)" $f "$HOSTUNREACH && ip.dst==198.51.100.7 && tcp.dstport==8009 && tcp.flags.syn==1 && tcp.seq==$(t $f "$WSYN" tcp.seq_raw | head -1)" -ge 1
  ((bad_ids == 0)) && ok "every ICMP quotes one of the SYNs (by IP id)" || bad "$bad_ids ICMPs quote no SYN of the capture"
  id=$(t $f "$WSYN" ip.id | head -1)
  expect "the first ICMP quotes the first SYN (IP id $id)" $f "$HOSTUNREACH && ip.id==$id" -ge 1
  p=$(t $f "$WSYN" frame.time_relative | tail -1)
  holds 'p < i' p="$p" i="$i" && ok "no SYN after the first ICMP (last SYN at t=$p)" || bad "SYN at t=$p after the ICMP at t=$i"
  expect "no SYN-ACK, no RST, no TLS" $f '(tcp.flags.syn==1 && tcp.flags.ack==1) || tcp.flags.reset==1 || tls' -eq 0
  expect "the ICMP errors are the only ICMP" $f "icmp && !($HOSTUNREACH)" -eq 0
}

# --- the sender's own firewall rejects mDNS ------------------------------------

# the TV's unicast answers to the sender's port 5353 (not the copies quoted in the ICMP errors)
UANSWER='ip.src==192.0.2.21 && ip.dst==192.0.2.10 && udp.srcport==5353 && udp.dstport==5353 && dns.flags.response==1 && !icmp'
PORTUNREACH='eth.src==02:ca:57:00:00:10 && ip.src==192.0.2.10 && ip.dst==192.0.2.21 && icmp.type==3 && icmp.code==3'

v_mdns-port-unreachable() {
  local f=mdns-port-unreachable.pcap nu ni fr tm id j late=0 pairs="" q m bad_q=0 qs=""
  encap $f Ethernet
  expect "2 QU PTR queries for _googlecast._tcp.local from 192.0.2.10:5353" $f 'ip.src==192.0.2.10 && udp.srcport==5353 && ip.dst==224.0.0.251 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local" && dns.qry.qu==1 && !icmp' -eq 2
  expect "no QM query from the sender" $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.qu==0' -eq 0
  expect "2 QM PTR queries from the phone 192.0.2.11:5353" $f 'ip.src==192.0.2.11 && udp.srcport==5353 && dns.flags.response==0 && dns.qry.name=="_googlecast._tcp.local" && dns.qry.qu==0' -eq 2
  expect "the TV answers the phone by multicast" $f "ip.src==192.0.2.21 && ip.dst==224.0.0.251 && dns.ptr.domain_name==\"$CC\" && !icmp" -ge 1
  expect "the TV answers the sender by unicast to 192.0.2.10:5353 (PTR, SRV 8009, A 192.0.2.21)" $f "$UANSWER && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.a==192.0.2.21" -ge 1
  # avahi answers a QU question by unicast only while its last multicast of the records is < 500 ms old
  while read -r q; do
    m=$(t $f "ip.src==192.0.2.21 && ip.dst==224.0.0.251 && dns.flags.response==1 && !icmp && frame.time_relative < $q" frame.time_relative | tail -1)
    if [[ -n $m ]] && holds 'q - m < 0.5' q="$q" m="$m"; then qs+="$(awk -v q="$q" -v m="$m" 'BEGIN { printf "%.3f ", q - m }')"; else bad_q=$((bad_q + 1)); fi
  done < <(t $f 'ip.src==192.0.2.10 && dns.flags.response==0 && dns.qry.qu==1 && !icmp' frame.time_relative)
  ((bad_q == 0)) && ok "each QU query comes < 0.5 s after the TV's last multicast answer (${qs% } s)" || bad "$bad_q QU queries without a multicast answer from the TV in the 0.5 s before"
  nu=$(n $f "$UANSWER")
  ni=$(n $f "$PORTUNREACH")
  ((ni >= 1 && ni == nu)) && ok "one ICMP port unreachable (type 3, code 3) from 192.0.2.10 to 192.0.2.21 per unicast answer ($ni)" ||
    bad "$nu unicast answers, $ni ICMP port unreachable"
  expect "... each quoting an mDNS response from 192.0.2.21:5353 to 192.0.2.10:5353 with the PTR" $f "$PORTUNREACH && ip.src==192.0.2.21 && ip.dst==192.0.2.10 && udp.srcport==5353 && udp.dstport==5353 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\"" -eq "$ni"
  # each unicast answer is followed within 10 ms by the ICMP that quotes it (same IP id)
  while IFS=$'\t' read -r fr tm id; do
    j=$(t $f "$PORTUNREACH && ip.id==$id" frame.number frame.time_relative | head -1)
    if [[ -n $j ]] && holds 'i > a && i - a < 0.01' a="$tm" i="${j##*$'\t'}"; then pairs+="$fr->${j%%$'\t'*} "; else late=$((late + 1)); fi
  done < <(t $f "$UANSWER" frame.number frame.time_relative ip.id)
  ((late == 0)) && ok "every unicast answer is answered by its ICMP within 10 ms (frames ${pairs% })" || bad "$late unicast answers without an ICMP quoting them within 10 ms"
  expect "no ICMP for the multicast answers (Linux sends none for a multicast destination)" $f 'icmp && ip.dst==224.0.0.251' -eq 0
  expect "the ICMP errors are the only ICMP" $f "icmp && !($PORTUNREACH)" -eq 0
  expect "every mDNS packet from the TV has IP TTL 255" $f 'ip.src==192.0.2.21 && mdns && !icmp && ip.ttl!=255' -eq 0
}

# --- castscope probe as the sender ---------------------------------------------

SENDER_LL=fe80::ca:57ff:fe00:10   # the sender's link-local address (from its MAC 02:ca:57:00:00:10)
GROUP=Google-Cast-Group-9D4B2E7F1A3C4E5D8B6F0A2C4E6D8F1B._googlecast._tcp.local
# the media subtype every Cast sender asks for (docs/probe.md)
MEDIA=_%9E5E7C8F47989526C9BCD95D24084F6F0B27C5ED._sub._googlecast._tcp.local
MINI=Google-Home-Mini-c8e2f7a04b154d9e8a3617f05b2c9d4e._googlecast._tcp.local

# probe_queries FILE FAMILY SRC GROUP : the probe's PTR queries from SRC to the mDNS GROUP, QU first, then QM
probe_queries() {
  local f=$1 fam=$2 src=$3 grp=$4 q first ttl=ip.ttl
  [[ $fam == ipv6 ]] && ttl=ipv6.hlim
  q="$fam.src==$src && $fam.dst==$grp && udp.srcport==5353 && dns.flags.response==0 && dns.qry.name==\"_googlecast._tcp.local\""
  expect "QU PTR query for _googlecast._tcp.local and the media subtype from $src to $grp" $f "$q && dns.qry.qu==1 && dns.qry.name==\"$MEDIA\"" -ge 1
  expect "QM queries from $src to $grp" $f "$q && !(dns.qry.qu==1)" -ge 1
  first=$(t $f "$q" dns.qry.qu | head -1)
  [[ $first =~ ^(1|True)(,(1|True))*$ ]] && ok "the first query from $src is QU in every question ($first)" || bad "first query from $src: QU bits '$first'"
  expect "every query from $src has $ttl 255" $f "$q && $ttl!=255" -eq 0
}

# probe_conn FILE NAME FAMILY SRC DST PORT : one TCP connection SRC -> DST:PORT with a TLS
# handshake, after DST's mDNS answer that advertised PORT
probe_conn() {
  local f=$1 name=$2 fam=$3 src=$4 dst=$5 port=$6 d a s syn
  d=$dst
  [[ $fam == ipv6 ]] && d="[$dst]"
  syn="$fam.src==$src && $fam.dst==$dst && tcp.dstport==$port && tcp.flags.syn==1 && tcp.flags.ack==0"
  expect "$name: one SYN from $src to $d:$port" $f "$syn" -eq 1
  a=$(t $f "$fam.src==$dst && dns.flags.response==1 && dns.srv.port==$port" frame.time_relative | head -1)
  s=$(t $f "$syn" frame.time_relative | head -1)
  [[ -n $a && -n $s ]] && holds 's > a' a="$a" s="$s" &&
    ok "$name: SYN at t=$s, after the answer with SRV port $port at t=$a" || bad "$name: answer at t=$a, SYN at t=$s"
  expect "$name: one SYN-ACK from $d:$port" $f "$fam.src==$dst && $fam.dst==$src && tcp.srcport==$port && tcp.flags.syn==1 && tcp.flags.ack==1" -eq 1
  expect "$name: TLS Client Hello from $src" $f "$fam.src==$src && $fam.dst==$dst && tcp.dstport==$port && tls.handshake.type==1" -eq 1
  expect "$name: TLS Server Hello from $d:$port" $f "$fam.src==$dst && $fam.dst==$src && tcp.srcport==$port && tls.handshake.type==2" -eq 1
}

v_probe-group() {
  local f=probe-group.pcap sport
  encap $f Ethernet
  probe_queries $f ip 192.0.2.10 224.0.0.251
  probe_queries $f ipv6 $SENDER_LL ff02::fb
  expect "no mDNS from the sender's global address 2001:db8::10" $f 'ipv6.src==2001:db8::10 && udp.port==5353' -eq 0
  expect "3 DIAL M-SEARCH from 192.0.2.10" $f 'ip.src==192.0.2.10 && ssdp && http.request.method=="M-SEARCH" && ssdp contains "ST: urn:dial-multiscreen-org:service:dial:1"' -eq 3
  sport=$(t $f 'http.request.method=="M-SEARCH"' udp.srcport | sort -u)
  [[ $(wc -w <<<"$sport") == 1 && $sport != 1900 ]] && ok "M-SEARCH from one ephemeral port $sport" || bad "M-SEARCH ports: $sport"
  expect "the speaker answers (192.0.2.23): Kitchen Speaker, SRV 8009, A 192.0.2.23" $f "ip.src==192.0.2.23 && dns.flags.response==1 && dns.ptr.domain_name==\"$MINI\" && dns.srv.port==8009 && dns.a==192.0.2.23 && dns.txt contains \"fn=Kitchen Speaker\"" -ge 1
  expect "... and the group Downstairs on the same host, SRV 42238" $f "ip.src==192.0.2.23 && dns.flags.response==1 && dns.ptr.domain_name==\"$GROUP\" && dns.srv.port==42238 && dns.txt contains \"fn=Downstairs\"" -ge 1
  expect "the TV answers over IPv6 (2001:db8::21): SRV 8009, AAAA 2001:db8::21" $f "ipv6.src==2001:db8::21 && dns.flags.response==1 && dns.ptr.domain_name==\"$CC\" && dns.srv.port==8009 && dns.aaaa==2001:db8::21 && dns.txt contains \"fn=Living Room TV\"" -ge 1
  expect "the TV has no IPv4: no IPv4 or ARP from its MAC, no A record" $f 'eth.src==02:ca:57:00:00:21 && (ip || arp) || (ipv6.src==2001:db8::21 && dns.a)' -eq 0
  probe_conn $f "Kitchen Speaker" ip 192.0.2.10 192.0.2.23 8009
  probe_conn $f "Downstairs (group)" ip 192.0.2.10 192.0.2.23 42238
  probe_conn $f "Living Room TV" ipv6 2001:db8::10 2001:db8::21 8009
  expect "no other TCP" $f 'tcp && !((ip.addr==192.0.2.10 && ip.addr==192.0.2.23 && (tcp.port==8009 || tcp.port==42238)) || (ipv6.addr==2001:db8::10 && ipv6.addr==2001:db8::21 && tcp.port==8009))' -eq 0
  expect "no RST, no ICMP errors" $f 'tcp.flags.reset==1 || icmp.type==3 || icmpv6.type==1' -eq 0
}

ALL=(healthy-ipv4 multi-device goodbye any-sll2 ipv6 fragmented legacy-unicast dial-ssdp dial-other-device dial-unanswered client-isolation own-queries-dropped reflector
     no-cast-queries no-mdns app-id-unanswered incomplete-resolution txt-missing-fn device-expired slow-response
     duplicate-name address-changed query-storm repeater advertised-address relayed-queries vlan-separated multicast-decayed
     cached-address local-name-dns wrong-interface
     connect-established connect-refused connect-timeout connect-unreachable connect-wrong-address
     mdns-port-unreachable probe-group)
want=("$@")
((${#want[@]})) || want=("${ALL[@]}")
for c in "${want[@]}"; do
  c=${c%.pcap}
  echo "== $c.pcap"
  if [[ ! -s $c.pcap ]]; then bad "missing $c.pcap"; continue; fi
  v_common "$c.pcap"
  "v_$c"
done
((FAIL == 0)) && echo "all checks passed" || { echo "SOME CHECKS FAILED"; exit 1; }
