/* proof.h - proof of reception (issue 14, docs/security.md): a member proves that it receives a
 * stream when a report block of it about the stream's SSRC echoes, as LSR, the middle 32 bits
 * of the NTP timestamp of one of the stream's recent SRs, with a DLSR no longer than the time
 * since that SR (plus a slack). A host that does not receive the stream (a blind forger, or one
 * spoofing source addresses off the path) cannot; a member that hears the SRs can. The sender
 * remembers the SRs it sent (lib/cc's containment, amcc_sender_on_sr_sent); the elements'
 * unproven-member budget (gst/common/gstamguard.c) remembers the SRs it sent or saw. */
#ifndef AMCC_PROOF_H
#define AMCC_PROOF_H
#include <stdint.h>
#include "amcc.h"
#ifdef __cplusplus
extern "C" {
#endif

/* SRs remembered: an LSR older than the last 16 SRs proves nothing */
#define AMCC_SR_MEMORY 16

typedef struct amcc_sr_memory {
  struct { uint32_t ntp; amcc_time at; } sr[AMCC_SR_MEMORY];  /* a ring */
  unsigned n, next;
} amcc_sr_memory;

/* An SR with this NTP timestamp (its middle 32 bits) left (or was seen) at `at`. */
void amcc_sr_memory_note (amcc_sr_memory *m, amcc_time at, uint32_t ntp_mid32);
/* When the SR whose NTP middle bits are lsr left (*at), if it is remembered; lsr 0 ("no SR
 * received yet", RFC 3550 6.4.1) never is. */
int amcc_sr_memory_find (const amcc_sr_memory *m, uint32_t lsr, amcc_time *at);
/* Does a report block with this LSR and DLSR (1/65536 s), arriving at now, prove reception?
 * Its LSR is a remembered SR and DLSR <= now - that SR's time + slack (one unit of DLSR's
 * truncation on top). slack: 0 where `at` is when the SR left (the sender); the spread of the
 * members' delays from the sender where it is when the SR arrived here (a receiver judging its
 * peers: a peer nearer the sender holds the SR longer). *at (may be NULL): the SR's time. */
int amcc_sr_memory_proves (const amcc_sr_memory *m, amcc_time now, uint32_t lsr, uint32_t dlsr,
    amcc_time slack, amcc_time *at);

/* The unproven-member budget: may a packet that would add `fresh` new unproven members pass
 * while `live` unproven members are live? budget 0 = no limit. */
static inline int
amcc_unproven_admit (uint32_t live, uint32_t fresh, uint32_t budget)
{
  return budget == 0 || fresh == 0 || (uint64_t) live + fresh <= budget;
}

#ifdef __cplusplus
}
#endif
#endif
