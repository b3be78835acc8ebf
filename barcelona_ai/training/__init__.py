"""Training the learned evaluation (the [train] extra): datasets from game records (datagen), the value network's
fit and its calibration metrics (train), the turn policy's fit (policy_train), and the self-play -> fit -> arena
loop (expert_iteration).

May import: every subpackage below it: barcelona_ai.rules, learned, search, workflows (and errors, core).
"""
