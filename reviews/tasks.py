from celery import shared_task

from reviews import services
from reviews.services import RESUME_TASK


@shared_task(name=RESUME_TASK)
def review_task_resume(task_id: int) -> str:
    """Resume the paused run of a decided task; a duplicate or redelivered message is a no-op."""
    return services.review_task_resume_run(task_id=task_id)


@shared_task(name="reviews.tasks.review_tasks_sweep")
def review_tasks_sweep() -> dict[str, int]:
    """Beat: escalate or expire overdue review tasks (settings.REVIEW_OVERDUE_ACTION)."""
    return services.review_tasks_sweep()
