/* django-celery-beat's periodic-task form: show the cron expression in words under the crontab
   field (was an inline script in its template; moved here for the Content-Security-Policy). */
(function () {
  "use strict";
  var script = document.getElementById("periodic-task-overrides");
  var readableCrontabs = JSON.parse(django.jQuery("#readable-crontabs").text());
  var originalCrontabHelp = script ? script.getAttribute("data-crontab-help") : "";
  function updateCrontabHelp(additional) {
    var help = django.jQuery(".field-crontab .help");
    help.text(originalCrontabHelp);
    help.append(document.createElement("br"));
    help.append(document.createTextNode("Translation: " + additional));
  }
  django.jQuery(".field-crontab_translation").hide();
  django.jQuery(".field-crontab").change(function () {
    updateCrontabHelp(readableCrontabs[django.jQuery("#id_crontab").val()]);
  });
})();
