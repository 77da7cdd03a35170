import os, time, cProfile, pstats, django
os.environ.setdefault("DJANGO_SETTINGS_MODULE","config.settings")
django.setup()
from django.conf import settings
settings.BRIEF_EMAIL_ENABLED=False
from config.celery import app
app.conf.task_always_eager=True
from core.services import user_ensure
from portfolios.models import Watchlist
from briefs.models import BriefRun
from briefs.services import brief_run_start
user,_=user_ensure(email="bench@alphadesk.local", roles=["analyst"], password=None)
wl,_=Watchlist.objects.update_or_create(owner=user,name="Bench five",defaults={"tickers":["RELIANCE.NS","INFY.NS","TCS.NS","HDFCBANK.NS","SBIN.NS"]})
BriefRun.objects.filter(watchlist=wl, status__in=["queued","running","awaiting_review"]).update(status="rejected")
def one():
    run=brief_run_start(user=user, watchlist_id=wl.pk)
    BriefRun.objects.filter(pk=run.pk).update(status="rejected")
for i in range(3): one()
pr=cProfile.Profile()
pr.enable()
for i in range(10): one()
pr.disable()
st=pstats.Stats(pr); st.sort_stats("cumulative").print_stats("briefs|reviews/services|core/audit|renderings|render", 45)
