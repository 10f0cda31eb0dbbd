/* gstasmpsrc.h - adaptive multicast RTP receiver (ASMP / TFMCC) around rtpbin. */
#ifndef GST_ASMP_SRC_H
#define GST_ASMP_SRC_H
#include <gst/gst.h>
#include <amcc/controller.h>
#include "../common/gstamsessionbin.h"

G_BEGIN_DECLS
#define GST_TYPE_ASMP_SRC (gst_asmp_src_get_type ())
G_DECLARE_FINAL_TYPE (GstAsmpSrc, gst_asmp_src, GST, ASMP_SRC, GstAmSessionBin)
GST_ELEMENT_REGISTER_DECLARE (asmpsrc);

/* For a bin of several streams (asspsrc), in NULL state: the source takes `lock` for all its
 * state and makes no receiver of its own; the group lends its `proto` receiver to the stream it
 * measures (lend_controller, NULL = none; call with the group's lock held, the receiver stays
 * the group's). own_ssrc: the SSRC of its last RTCP (0 before), with the lock held. */
typedef struct _GstAmCcReceiver GstAmCcReceiver;
void gst_asmp_src_join_group (GstAsmpSrc * self, GMutex * lock, const amcc_protocol * proto);
void gst_asmp_src_lend_controller (GstAsmpSrc * self, GstAmCcReceiver * cc);
guint32 gst_asmp_src_own_ssrc (GstAsmpSrc * self);
/* Asks sender_ssrc for a key frame: an RTCP PLI (RFC 4585 6.3.1) in our next RTCP packet, sent
 * early when rtpsession allows. Callable from any thread, without the group's lock. */
void gst_asmp_src_request_key_frame (GstAsmpSrc * self, guint32 sender_ssrc);
G_END_DECLS
#endif
