import { SummaryRecipes } from '../src/summary-recipes';

// The gateway's bounded memory of projects' batch-summary recipes (summary-recipes.ts).
describe('SummaryRecipes', () => {
  it('keeps one recipe per customer and project', () => {
    const r = new SummaryRecipes(10);
    r.set('alice', 'p', 'A');
    r.set('bob', 'p', 'B');
    r.set('alice', 'p', 'A2');
    expect([r.get('alice', 'p'), r.get('bob', 'p'), r.get('alice', 'q'), r.size]).toEqual(['A2', 'B', undefined, 2]);
    // The key cannot be forged by names that concatenate alike.
    r.set('al', 'icep', 'X');
    expect(r.get('alice', 'p')).toBe('A2');
    r.delete('alice', 'p');
    expect(r.get('alice', 'p')).toBeUndefined();
  });

  it('holds at most its capacity, dropping the least recently used', () => {
    const r = new SummaryRecipes(2);
    r.set('u', 'a', '1');
    r.set('u', 'b', '2');
    r.get('u', 'a'); // a is now more recent than b
    r.set('u', 'c', '3');
    expect([r.get('u', 'a'), r.get('u', 'b'), r.get('u', 'c'), r.size]).toEqual(['1', undefined, '3', 2]);
  });

  it('capacity 0 keeps nothing (batches always go as frames)', () => {
    const r = new SummaryRecipes(0);
    r.set('u', 'a', '1');
    expect([r.get('u', 'a'), r.size]).toEqual([undefined, 0]);
  });
});
