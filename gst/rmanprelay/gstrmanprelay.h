/* gstrmanprelay.h - RMANP active relay: an element with no pads that owns its sockets. */
#ifndef GST_RMANP_RELAY_H
#define GST_RMANP_RELAY_H
#include <gst/gst.h>

G_BEGIN_DECLS
#define GST_TYPE_RMANP_RELAY (gst_rmanp_relay_get_type ())
G_DECLARE_FINAL_TYPE (GstRmanpRelay, gst_rmanp_relay, GST, RMANP_RELAY, GstElement)
GST_ELEMENT_REGISTER_DECLARE (rmanprelay);

G_END_DECLS
#endif
