/* gstamguard.h - source-address binding of RTCP SSRCs (docs/security.md): the first address an
 * SSRC is heard from owns it; a compound RTCP packet that speaks for an SSRC owned by another
 * address (its SR/RR/APP sender, a BYE or SDES entry) is dropped before rtpbin or lib/cc see it.
 * A third host on the group can no longer report, or say BYE, in an honest member's name. It
 * does not stop a member forging from its own address, nor anyone who can spoof source
 * addresses on the path (SRTCP with per-member keys does). Bindings of silent SSRCs are
 * forgotten; the table is capped, and so is what one address may bind: new SSRCs beyond either
 * cap are dropped and counted. */
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

typedef struct _GstAmSourceGuard GstAmSourceGuard;

typedef enum {
  GST_AM_GUARD_PASS,            /* unknown sender address or every SSRC is its own: use it */
  GST_AM_GUARD_SPOOFED,         /* speaks for an SSRC bound to another address: drop */
  GST_AM_GUARD_FULL,            /* a new SSRC, and the table is full: drop */
  GST_AM_GUARD_CROWDED          /* a new SSRC from an address holding max_per_host: drop */
} GstAmGuardVerdict;

/* forget_ns: a binding not heard from this long is released; max_per_host: live bindings one
 * address may hold, 0 = no limit. */
GstAmSourceGuard *gst_am_source_guard_new (gint64 forget_ns, guint max_per_host);
void gst_am_source_guard_free (GstAmSourceGuard * g);
/* Checks a compound RTCP buffer (source address from its GstNetAddressMeta) and, when it
 * passes, binds its new SSRCs to that address; a BYE from the owner releases the binding. */
GstAmGuardVerdict gst_am_source_guard_check (GstAmSourceGuard * g, GstBuffer * rtcp, gint64 now);
guint gst_am_source_guard_size (GstAmSourceGuard * g);

G_END_DECLS
#endif
