"""Pieces the batch-194 behaviour-cloning cases share: a spiralling reach expert whose
demonstrations are cut into action chunks (absolute waypoint targets), and a small MLP
policy."""
import numpy as np
import torch
from torch import nn

GAIN, TWIST = 0.25, 0.12           # the expert's pull toward the goal and its sideways twist


def expert_step(position, goal):
    """The expert's next waypoint from where it is: a spiral onto the goal."""
    gap = goal - position
    side = np.stack([-gap[..., 1], gap[..., 0]], axis=-1)
    return position + GAIN * gap + TWIST * side


def chunked_demonstrations(episodes, horizon, rng, min_length=3, max_length=12):
    """Demonstrations of random length (the operator stops at any time), cut into windows:
    states (N, 4) = (position, goal), chunks (N, horizon, 2) of the next ``horizon``
    waypoints, and is_pad (N, horizon): True where the window runs past the episode's end
    and the chunk holds the episode's last waypoint repeated (the dataset's padding)."""
    states, chunks, pads = [], [], []
    for _ in range(episodes):
        goal = rng.uniform(-1.0, 1.0, 2)
        position = rng.uniform(-1.0, 1.0, 2)
        length = int(rng.integers(min_length, max_length + 1))
        path = [position]
        for _ in range(length):
            path.append(expert_step(path[-1], goal))
        path = np.array(path)                      # positions 0..length
        for t in range(length):
            future = np.arange(t + 1, t + 1 + horizon)
            pad = future > length
            states.append(np.concatenate([path[t], goal]))
            chunks.append(path[np.minimum(future, length)])
            pads.append(pad)
    return (torch.tensor(np.array(states), dtype=torch.float32),
            torch.tensor(np.array(chunks), dtype=torch.float32),
            torch.tensor(np.array(pads)))


def true_chunks(states, horizon):
    """The expert's real next ``horizon`` waypoints from each state (no episode end)."""
    position, goal = states[:, :2].numpy(), states[:, 2:].numpy()
    out = []
    for _ in range(horizon):
        position = expert_step(position, goal)
        out.append(position)
    return torch.tensor(np.stack(out, axis=1), dtype=torch.float32)


def policy(inputs, outputs, hidden=128):
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, outputs))


# --- a driving camera for steering cloning: the road seen from above the bonnet ---------
ASPHALT = np.array([0.45, 0.42, 0.40])
GRASS = np.array([0.25, 0.50, 0.10])
LEFT_LINE = np.array([0.90, 0.80, 0.10])        # yellow
RIGHT_LINE = np.array([0.85, 0.15, 0.10])       # red kerb
HEIGHT, WIDTH, HALF_ROAD = 8, 16, 3.0


def road_images(n, rng):
    """n RGB frames (n, 3, 8, 16) in [0, 1] and the human's steering angle (n,): the road's
    centre drifts across the frame with the car's offset and the bend's curvature, under
    random lighting; steering turns back to the centre and into the bend."""
    offset = rng.uniform(-4.0, 4.0, n)
    bend = rng.uniform(-0.6, 0.6, n)
    light = rng.uniform(0.6, 1.3, n)
    rows = np.arange(HEIGHT)[::-1]                          # 0 at the bottom row
    cols = np.arange(WIDTH) + 0.5
    centre = WIDTH / 2 + offset[:, None] + bend[:, None] * rows[None, :]     # (n, H)
    dist = cols[None, None, :] - centre[:, :, None]                          # (n, H, W)
    frame = np.where(np.abs(dist)[..., None] < HALF_ROAD, ASPHALT, GRASS)
    left = np.abs(dist + HALF_ROAD) < 0.6
    right = np.abs(dist - HALF_ROAD) < 0.6
    frame = np.where(left[..., None], LEFT_LINE, frame)
    frame = np.where(right[..., None], RIGHT_LINE, frame)
    frame = frame * light[:, None, None, None] + rng.normal(0, 0.03, frame.shape)
    steering = -0.1 * offset + 0.8 * bend
    images = np.clip(frame, 0, 1).transpose(0, 3, 1, 2)
    return (torch.tensor(images, dtype=torch.float32),
            torch.tensor(steering, dtype=torch.float32))


def steering_net():
    return nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                         nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(),
                         nn.Flatten(), nn.Linear(16 * 4 * 8, 64), nn.ReLU(), nn.Linear(64, 1))
