// The editor's time zone in the admin (editorial/timezones.py): the browser's, kept in a
// cookie sent to the admin's pages only, so that publish times are shown and read in it.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) {
    return;
  }
  var cookie = "admin_time_zone=" + encodeURIComponent(zone);
  if (document.cookie.split("; ").indexOf(cookie) === -1) {
    var secure = window.location.protocol === "https:" ? "; Secure" : "";
    document.cookie = cookie + "; path=/admin/; max-age=31536000; SameSite=Lax" + secure;
  }
})();
