#!/usr/bin/env bash
# captures/verify.sh -- check that the captures contain what README.md says.
#
#   captures/verify.sh [name...]     (no root needed; needs tshark + capinfos)
#
# Prints one line per check and exits non-zero if any check fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

FAIL=0
ok()   { printf '  ok    %s\n' "$*"; }
bad()  { printf '  FAIL  %s\n' "$*"; FAIL=1; }
# t FILE FILTER [FIELDS...] : tshark fields output (tab separated)
t() {
  local f=$1 y=$2
  shift 2
  local args=()
  for x in "$@"; do args+=(-e "$x"); done
  if ((${#args[@]})); then
    tshark -r "$f" -Y "$y" -T fields -E separator=/t "${args[@]}" 2>/dev/null
  else
    tshark -r "$f" -Y "$y" 2>/dev/null
  fi
}
n() { t "$1" "$2" | wc -l; }                # number of frames matching
expect() { # DESC FILE FILTER OP NUM
  local c
  c=$(n "$2" "$3")
  if [ "$c" "$4" "$5" ]; then ok "$1 ($c)"; else bad "$1 (got $c, want $4 $5) [$3]"; fi
}
encap() { # FILE WANT
  local e
  e=$(capinfos -E "$1" | sed -n 's/^File encapsulation: *//p')
  [[ $e == "$2" ]] && ok "encapsulation $e" || bad "encapsulation '$e', want '$2'"
}

v_common() { # FILE
  local p d
  p=$(capinfos -M -c "$1" | sed -n 's/^Number of packets: *//p')
  d=$(capinfos -M -u "$1" | sed -n 's/^Capture duration: *//p')
  ok "$(basename "$1"): $p packets, $(stat -c %s "$1") bytes, $d"
  if capinfos "$1" | grep -q 'nanosecond'; then ok "nanosecond timestamps"; else ok "microsecond timestamps"; fi
  expect "has mDNS or SSDP" "$1" 'mdns || ssdp' -ge 1
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
  if [[ -n $first_q && -n $phone_q && -n $first_r ]] && awk -v r="$first_r" -v p="$phone_q" 'BEGIN{exit !(r>=p)}'; then
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

ALL=(healthy-ipv4 multi-device goodbye any-sll2 ipv6 fragmented legacy-unicast dial-ssdp client-isolation own-queries-dropped reflector)
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
