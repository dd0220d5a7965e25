import { boundsWithin } from '../../../functions/data/pivot-page';

// Style-A paging with a name prefix (suppression lists' term, tags' prefix): where a pivot lands.
describe('boundsWithin', () => {
  it('makes a pivot inside the prefix relative to it', () => {
    expect(boundsWithin('team-', { after: 'team-2@x.com' })).toEqual({ after: '2@x.com' });
    expect(boundsWithin('team-', { before: 'team-' })).toEqual({ before: '' });
    expect(boundsWithin('', { after: 'a@x.com' })).toEqual({ after: 'a@x.com' });
  });

  it('opens the range for a pivot on the far side of the prefix, and empties it on the near side', () => {
    expect(boundsWithin('team-', { after: 'a@x.com' })).toEqual({});
    expect(boundsWithin('team-', { after: 'tea' })).toEqual({});
    expect(boundsWithin('team-', { after: 'zed@x.com' })).toBe('empty');
    expect(boundsWithin('team-', { before: 'zed@x.com' })).toEqual({});
    expect(boundsWithin('team-', { before: 'a@x.com' })).toBe('empty');
  });
});
