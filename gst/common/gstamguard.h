/* gstamguard.h - source-address binding of RTCP SSRCs (docs/security.md): the first address an
 * SSRC is heard from owns it; a compound RTCP packet that speaks for an SSRC owned by another
 * address (its SR/RR/APP sender, a BYE or SDES entry) is dropped before rtpbin or lib/cc see it.
 * A third host on the group can no longer report, or say BYE, in an honest member's name. It
 * does not stop a member forging from its own address, nor anyone who can spoof source
 * addresses on the path (SRTCP with per-member keys does). Bindings of silent SSRCs are
 * forgotten; the table is capped, and so is what one address may bind: new SSRCs beyond either
 * cap are dropped and counted. Many addresses (or spoofed ones) could still add members without
 * bound, so the members that have not proven reception of the stream (amcc/proof.h) share one
 * budget too: while it is full, RTCP from further new unproven SSRCs is dropped. */
#ifndef GST_AM_GUARD_H
#define GST_AM_GUARD_H
#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_AM_GUARD_MAX_SSRCS 1024   /* bindings at most (an RTCP group this size is rare) */
/* default of the live bindings one address may hold (the elements' max-ssrcs-per-host): a host
 * runs a member or a few (a sender and a receiver on one machine, receivers restarted with new
 * SSRCs); new SSRCs beyond it are dropped, so that one host cannot grow rtpsession's member count
 * (and with it the RTCP interval of every member) */
#define GST_AM_GUARD_MAX_PER_HOST 32
/* default of the live unproven SSRCs all addresses together may hold (the elements'
 * max-unproven-members): a new member is unproven for an RTCP interval or so (its first RR
 * comes before it has heard an SR), so this many may join at once before their first reports
 * are dropped; a member that has proven reception leaves the budget */
#define GST_AM_GUARD_MAX_UNPROVEN 16
/* a receiver judging its peers' proofs by when the sender's SR reached *it*: a peer nearer the
 * sender held the SR longer than we did, by at most the spread of the members' delays */
#define GST_AM_GUARD_PEER_SLACK (500 * GST_MSECOND)

typedef struct _GstAmSourceGuard GstAmSourceGuard;

typedef enum {
  GST_AM_GUARD_PASS,            /* unknown sender address or every SSRC is its own: use it */
  GST_AM_GUARD_SPOOFED,         /* speaks for an SSRC bound to another address: drop */
  GST_AM_GUARD_FULL,            /* a new SSRC, and the table is full: drop */
  GST_AM_GUARD_CROWDED,         /* a new SSRC from an address holding max_per_host: drop */
  GST_AM_GUARD_UNPROVEN         /* a new SSRC that proves nothing, the unproven budget full: drop */
} GstAmGuardVerdict;

/* forget_ns: a binding not heard from this long is released; max_per_host: live bindings one
 * address may hold, 0 = no limit; max_unproven: live bindings of SSRCs that have not proven
 * reception, over all addresses, 0 = no limit; proof_slack: amcc_sr_memory_proves's slack (0 at
 * the sender, GST_AM_GUARD_PEER_SLACK at a receiver). */
GstAmSourceGuard *gst_am_source_guard_new (gint64 forget_ns, guint max_per_host,
    guint max_unproven, gint64 proof_slack);
void gst_am_source_guard_free (GstAmSourceGuard * g);
/* The stream whose reception members prove: our own SSRC at the sender, the sender's at a
 * receiver (remote): there its SRs that pass the guard are remembered as they arrive; at the
 * sender an SR in our own SSRC from the group is a forgery and proves nothing. The stream's
 * SSRC itself does not count as unproven. */
void gst_am_source_guard_set_stream (GstAmSourceGuard * g, guint32 ssrc, gboolean remote);
/* Our own SR of the stream left at `at` (the sender). */
void gst_am_source_guard_note_sr (GstAmSourceGuard * g, gint64 at, guint32 ntp_mid32);
/* Checks a compound RTCP buffer (source address from its GstNetAddressMeta) and, when it
 * passes, binds its new SSRCs to that address; a BYE from the owner releases the binding. An
 * SSRC is proven from the packet on in which a report block of it about the stream proves
 * reception (amcc_sr_memory_proves against the stream's remembered SRs). */
GstAmGuardVerdict gst_am_source_guard_check (GstAmSourceGuard * g, GstBuffer * rtcp, gint64 now);
guint gst_am_source_guard_size (GstAmSourceGuard * g);
/* Live bindings that have not proven reception (the budget's count). */
guint gst_am_source_guard_unproven (GstAmSourceGuard * g, gint64 now);

G_END_DECLS
#endif
