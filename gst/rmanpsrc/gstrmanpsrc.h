/* gstrmanpsrc.h - RMANP receiver: the byte stream of an RMANP session, in order and complete. */
#ifndef GST_RMANP_SRC_H
#define GST_RMANP_SRC_H
#include <gst/base/gstpushsrc.h>

G_BEGIN_DECLS
#define GST_TYPE_RMANP_SRC (gst_rmanp_src_get_type ())
G_DECLARE_FINAL_TYPE (GstRmanpSrc, gst_rmanp_src, GST, RMANP_SRC, GstPushSrc)
GST_ELEMENT_REGISTER_DECLARE (rmanpsrc);

G_END_DECLS
#endif
